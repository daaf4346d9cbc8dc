// The payment of a sale: cash (with change), card, transfer, or mixed (any two or three of them).
import { dec, formatMoney, sub, type Decimal } from "@ecf/shared/money";
import { canonical, MONEY, parseNumber } from "@ecf/ui-kit";
import { changeFor, type Payment, type PaymentMethod } from "./document.ts";

/** What the cashier typed: amounts as text ("" when not given). */
export interface PaymentInput {
  method: PaymentMethod;
  /** Cash handed over ("" = exactly the cash part). */
  cash: string;
  card: string;
  transfer: string;
}

/** An amount typed in a payment field ("" = not given), or the Spanish reason it is not one. */
function typedAmount(text: string, what: string): Decimal | undefined | string {
  if (!text.trim()) return undefined;
  const parsed = parseNumber(text, MONEY(what));
  return parsed.ok ? parsed.value : parsed.error;
}

/**
 * The payment of a sale of `totalText`, or what is wrong with it. Cash may exceed its part (the
 * change); card and transfer amounts are exact. Mixed: card and transfer as typed, the rest in
 * cash (at least two methods).
 */
export function paymentFor(state: PaymentInput, totalText: string): Payment | string {
  const m = state.method;
  const total = dec(totalText);
  const cash = typedAmount(state.cash, "El efectivo recibido");
  if (typeof cash === "string" && (m === "efectivo" || m === "mixto")) return cash;
  if (m === "efectivo") {
    const received = cash && typeof cash === "object" ? canonical(cash) : totalText;
    if (!changeFor(total, received)) return "El efectivo recibido no cubre el total.";
    return { method: m, parts: [{ method: "efectivo", amount: formatMoney(total) }], cashReceived: received };
  }
  if (m === "mixto") {
    const cardAmount = typedAmount(state.card, "El monto con tarjeta");
    const transferAmount = typedAmount(state.transfer, "El monto por transferencia");
    if (typeof cardAmount === "string") return cardAmount;
    if (typeof transferAmount === "string") return transferAmount;
    if (cardAmount?.coef === 0n || transferAmount?.coef === 0n)
      return "Los montos con tarjeta y transferencia deben ser positivos.";
    if (!cardAmount && !transferAmount) return "Indique el monto con tarjeta o por transferencia.";
    const cashPart = sub(sub(total, cardAmount ?? dec("0")), transferAmount ?? dec("0"));
    if (cashPart.coef < 0n) return "Tarjeta y transferencia suman más que el total.";
    const parts: Payment["parts"] = [];
    if (cashPart.coef > 0n) parts.push({ method: "efectivo", amount: formatMoney(cashPart) });
    if (cardAmount) parts.push({ method: "tarjeta", amount: formatMoney(cardAmount) });
    if (transferAmount) parts.push({ method: "transferencia", amount: formatMoney(transferAmount) });
    if (parts.length < 2) return "Un pago mixto usa al menos dos formas de pago.";
    if (cashPart.coef === 0n) return { method: m, parts };
    const received = cash && typeof cash === "object" ? canonical(cash) : formatMoney(cashPart);
    if (!changeFor(cashPart, received)) return "El efectivo recibido no cubre la parte en efectivo.";
    return { method: m, parts, cashReceived: received };
  }
  return { method: m, parts: [{ method: m, amount: formatMoney(total) }] };
}

/** The change to hand back: cash received minus the cash part (null when no cash). */
export function cashChange(p: Payment): Decimal | null {
  const cashPart = p.parts.find((x) => x.method === "efectivo");
  return cashPart && p.cashReceived ? changeFor(dec(cashPart.amount), p.cashReceived) : null;
}
