// The sale screen: search the catalogue by name or code, a cart with quantities and line discounts,
// the buyer (an RNC makes it an E31), totals from the shared package, and the payment. Each part is
// a component of ui/sale/; this module composes them and wires the app's events to them.
import { formatMoney } from "@ecf/shared/money";
import { h } from "@ecf/ui-kit";
import type { PosDatabase } from "../db.ts";
import { cartTotals } from "../sale/document.ts";
import { paymentFor } from "../sale/payment.ts";
import { buyerFields } from "./sale/buyer-fields.ts";
import { cartLines } from "./sale/cart-lines.ts";
import { chargeAction } from "./sale/charge-action.ts";
import { productEntry } from "./sale/product-entry.ts";
import { type SaleRequest, type SaleScreenState, tipoOf } from "../sale/draft.ts";
import type { FindTaxpayer } from "../sale/buyers.ts";
import { tenderFields } from "./sale/tender.ts";
import { totalsBox } from "./sale/totals.ts";

export { RESULTS_PER_PAGE } from "./sale/product-entry.ts";
export { emptySale, type SaleRequest, type SaleScreenState } from "../sale/draft.ts";

export interface SaleScreenOptions {
  /** DGII's registry, asked when the till is online; without it only recent buyers fill the name. */
  findTaxpayer?: FindTaxpayer;
  /** The largest quantity a line may carry (the business's setting; 9,999 by default). */
  maxQuantity?: string;
  /** Told after every change to the cart, the buyer or the payment (the app keeps it across reloads). */
  changed?: (state: SaleScreenState) => void;
}

/** The app forwards every window keydown to the sale screen on display as this event. */
export const SALE_KEY = "sale-key";
/** The app hands a scanned code to the sale screen on display (see scanner.ts). */
export const SALE_SCAN = "sale-scan";
/** The app tells the sale screen on display that the catalogue changed (it reloads its products in place). */
export const CATALOG_PULLED = "catalog-pulled";

export async function saleScreen(
  db: PosDatabase,
  state: SaleScreenState,
  charge: (req: SaleRequest) => Promise<void>,
  options: SaleScreenOptions = {},
): Promise<HTMLElement> {
  const root = h("div", { class: "sale" });
  const message = h("p", { class: "error", role: "alert", id: "sale-error" });
  const action = chargeAction(db, state, message, charge);
  const totals = totalsBox();
  const tender = tenderFields(state, () => renderTotals());
  const cart = cartLines(state, message, options.maxQuantity, () => renderTotals());
  const entry = productEntry(db, cart.add);
  const buyer = buyerFields(db, state, {
    findTaxpayer: options.findTaxpayer,
    rncChanged: () => renderTotals(),
    nameChanged: () => options.changed?.(state),
  });
  function renderTotals() {
    action.cartChanged();
    options.changed?.(state);
    const t = cartTotals(state.lines, tipoOf(state));
    tender.show(state.lines.length ? paymentFor(state, formatMoney(t.total)) : undefined);
    totals.show(t, tipoOf(state));
  }

  root.addEventListener(CATALOG_PULLED, () => entry.refresh());
  // Keys arrive from the window (see SALE_KEY), so they work with the focus on the page itself.
  root.addEventListener(SALE_KEY, (event) => {
    const e = (event as CustomEvent<KeyboardEvent>).detail;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      // What Enter or a scan just asked for is in the cart before charging.
      void entry.settled().then(() => action.charge());
    } else entry.key(e);
  });
  root.addEventListener(SALE_SCAN, (e) => entry.scanned((e as CustomEvent<string>).detail));

  cart.render();
  // Back on the screen with an RNC typed: its warning (not active, not registered) shows again.
  if (state.rnc) void buyer.refill();
  root.append(
    entry.element,
    h("div", { class: "right" }, cart.element, buyer.element, totals.element, tender.element, message, action.button),
  );
  // The app focuses [data-autofocus] once the screen is attached (focus on a detached node is lost).
  return root;
}
