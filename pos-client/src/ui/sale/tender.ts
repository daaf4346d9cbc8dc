// The payment: how the customer pays (cash, card, transfer or a mix), the amounts handed over, and
// the change to give back or what is wrong with the amounts.
import { formatMoney } from "@ecf/shared/money";
import { type Component, h, money } from "@ecf/ui-kit";
import type { Payment, PaymentMethod } from "../../sale/document.ts";
import { cashChange } from "../../sale/payment.ts";
import type { SaleScreenState } from "../../sale/draft.ts";

export interface Tender extends Component {
  /** Shows the fields the method needs and the change of `payment` (or why it is not one). */
  show(payment: Payment | string | undefined): void;
}

const METHODS = [
  ["efectivo", "Efectivo"],
  ["tarjeta", "Tarjeta"],
  ["transferencia", "Transferencia"],
  ["mixto", "Mixto (efectivo, tarjeta, transferencia)"],
] as const;

/** An amount the cashier types; every keystroke goes to the state and the screen is `changed`. */
function amountInput(
  state: SaleScreenState,
  field: "cash" | "card" | "transfer",
  placeholder: string,
  changed: () => void,
) {
  const input = h("input", { id: field, inputmode: "decimal", placeholder, value: state[field], autocomplete: "off" });
  input.addEventListener("input", () => {
    state[field] = input.value.trim();
    changed();
  });
  return input;
}

export function tenderFields(state: SaleScreenState, changed: () => void): Tender {
  const method = h(
    "select",
    { id: "payment-method", "aria-label": "Forma de pago" },
    ...METHODS.map(([v, label]) => h("option", { value: v, selected: state.method === v }, label)),
  );
  method.addEventListener("change", () => {
    state.method = method.value as PaymentMethod;
    changed();
  });
  const cash = amountInput(state, "cash", "Efectivo recibido", changed);
  const card = amountInput(state, "card", "Monto con tarjeta", changed);
  const transfer = amountInput(state, "transfer", "Monto por transferencia", changed);
  const change = h("div", { class: "change", id: "change" });
  const show = (p: Payment | string | undefined) => {
    cash.hidden = !(state.method === "efectivo" || state.method === "mixto");
    card.hidden = state.method !== "mixto";
    transfer.hidden = state.method !== "mixto";
    const back = typeof p === "object" ? cashChange(p) : null;
    change.textContent = back ? `Cambio: ${money(formatMoney(back))}` : typeof p === "string" ? p : "";
  };
  return {
    element: h("fieldset", { class: "payment" }, h("legend", {}, "Pago"), method, cash, card, transfer, change),
    show,
  };
}
