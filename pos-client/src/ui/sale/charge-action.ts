// The charge button (and Ctrl+Enter): checks the sale, asks to confirm a RD$0.00 receipt, hands the
// sale to the app once at a time, and remembers the buyer invoiced.
import { formatMoney } from "@ecf/shared/money";
import { verifyRncOrCedula } from "@ecf/shared/ids";
import { type Component, h } from "@ecf/ui-kit";
import type { PosDatabase } from "../../db.ts";
import { rememberBuyer } from "../../sale/buyers.ts";
import { cartTotals, type Payment } from "../../sale/document.ts";
import { paymentFor } from "../../sale/payment.ts";
import { ZERO_TOTAL_MESSAGES, zeroTotalVerdict } from "../../sale/zero-total.ts";
import { type SaleRequest, type SaleScreenState, tipoOf } from "../../sale/draft.ts";

export interface ChargeAction extends Component<HTMLButtonElement> {
  charge(): Promise<void>;
  /** The cart changed: a RD$0.00 receipt confirmed before must be confirmed again. */
  cartChanged(): void;
}

/** Why the cart and buyer cannot be charged yet, in the cashier's words. */
function saleProblem(state: SaleScreenState): string | undefined {
  if (!state.lines.length) return "El carrito está vacío.";
  if (!state.rnc) return undefined;
  const v = verifyRncOrCedula(state.rnc);
  if (!v.ok && v.reason === "format") return "El RNC debe tener 9 dígitos (o 11 una cédula).";
  if (!state.buyerName.trim()) return "Una factura de crédito fiscal necesita la razón social del comprador.";
  return undefined;
}

function saleRequest(state: SaleScreenState, payment: Payment): SaleRequest {
  const buyer = { rnc: state.rnc, name: state.buyerName.trim() };
  return {
    tipoeCF: tipoOf(state),
    lines: state.lines,
    buyer: buyer.rnc || buyer.name ? { rnc: buyer.rnc || undefined, name: buyer.name || undefined } : undefined,
    payment,
  };
}

export function chargeAction(
  db: PosDatabase,
  state: SaleScreenState,
  message: HTMLElement,
  charge: (req: SaleRequest) => Promise<void>,
): ChargeAction {
  const button = h("button", { type: "button", class: "primary big", id: "charge" }, "Cobrar (Ctrl+Enter)");
  // Ctrl+Enter does not care that the button is disabled: one charge at a time, per screen.
  let charging = false;
  // The cashier confirmed a RD$0.00 receipt; any change to the cart asks again.
  let zeroConfirmed = false;
  const zeroConfirmButton = () =>
    h(
      "button",
      { type: "button", id: "confirm-zero", onclick: () => ((zeroConfirmed = true), void doCharge()) },
      "Emitir sin cobro",
    );
  async function doCharge() {
    if (charging) return;
    message.textContent = "";
    const problem = saleProblem(state);
    if (problem) {
      message.textContent = problem;
      return;
    }
    const t = cartTotals(state.lines, tipoOf(state));
    const zero = zeroTotalVerdict(t.total, tipoOf(state), zeroConfirmed);
    if (zero !== "fine") {
      message.replaceChildren(ZERO_TOTAL_MESSAGES[zero]);
      if (zero === "needs-confirmation") message.append(" ", zeroConfirmButton());
      return;
    }
    const p = paymentFor(state, formatMoney(t.total));
    if (typeof p === "string") {
      message.textContent = p;
      return;
    }
    charging = true;
    button.disabled = true;
    try {
      const buyer = { rnc: state.rnc, name: state.buyerName.trim() };
      await charge(saleRequest(state, p));
      // A buyer invoiced here fills itself the next time, online or not.
      if (buyer.rnc && buyer.name)
        await rememberBuyer(db, { rnc: buyer.rnc, name: buyer.name, usedAt: new Date().toISOString() }).catch(() => {});
    } catch (error) {
      message.textContent = error instanceof Error ? error.message : String(error);
    } finally {
      charging = false;
      button.disabled = false;
    }
  }
  button.addEventListener("click", () => void doCharge());
  return { element: button, charge: doCharge, cartChanged: () => (zeroConfirmed = false) };
}
