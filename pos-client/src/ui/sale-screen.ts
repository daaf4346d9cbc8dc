// The sale screen: search the catalogue by name or code, a cart with quantities and line discounts,
// the buyer (an RNC makes it an E31), totals from the shared package, and the payment. Each part is
// a component of ui/sale/; this module composes them into the handle the app drives.
import { formatMoney } from "@ecf/shared/money";
import { type Component, h } from "@ecf/ui-kit";
import type { PosDatabase } from "../db.ts";
import { cartTotals } from "../sale/document.ts";
import { paymentFor } from "../sale/payment.ts";
import { buyerFields } from "./sale/buyer-fields.ts";
import { cartLines } from "./sale/cart-lines.ts";
import { chargeAction } from "./sale/charge-action.ts";
import { type EntryOnScreen, productEntry } from "./sale/product-entry.ts";
import type { Lookups } from "./sale/lookups.ts";
import { type SaleRequest, type SaleScreenState, tipoOf } from "../sale/draft.ts";
import type { FindTaxpayer } from "../sale/buyers.ts";
import { tenderFields } from "./sale/tender.ts";
import { totalsBox } from "./sale/totals.ts";

export interface SaleScreenOptions {
  /** DGII's registry, asked when the till is online; without it only recent buyers fill the name. */
  findTaxpayer?: FindTaxpayer;
  /** The largest quantity a line may carry (the business's setting; 9,999 by default). */
  maxQuantity?: string;
  /** Told after every change to the cart, the buyer or the payment (the app keeps it across reloads). */
  changed?: (state: SaleScreenState) => void;
  /** The sale's lookups, kept across redraws of its screen (a screen of its own by default). */
  lookups?: Lookups<EntryOnScreen>;
}

/** The sale screen on display, as the app drives it. */
export interface SaleScreen extends Component {
  /** A keydown from the window (Enter, Ctrl+Enter and typing work wherever the focus is). */
  key(e: KeyboardEvent): void;
  /** A scanned code (see scanner.ts). */
  scan(code: string): void;
  /** The catalogue changed: the products reload in place, the search stays as typed. */
  catalogChanged(): void;
  /** Put on display (the app calls it once attached; a drawing dropped for a newer one never is). */
  attached(): void;
}

export async function saleScreen(
  db: PosDatabase,
  state: SaleScreenState,
  charge: (req: SaleRequest) => Promise<void>,
  options: SaleScreenOptions = {},
): Promise<SaleScreen> {
  const element = h("div", { class: "sale" });
  const message = h("p", { class: "error", role: "alert", id: "sale-error" });
  const action = chargeAction(db, state, message, charge);
  const totals = totalsBox();
  const tender = tenderFields(state, () => renderTotals());
  const cart = cartLines(state, message, options.maxQuantity, () => renderTotals());
  const entry = productEntry(db, cart.add, options.lookups);
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

  cart.render();
  // Back on the screen with an RNC typed: its warning (not active, not registered) shows again.
  if (state.rnc) void buyer.refill();
  element.append(
    entry.element,
    h("div", { class: "right" }, cart.element, buyer.element, totals.element, tender.element, message, action.element),
  );
  // The app focuses [data-autofocus] once the screen is attached (focus on a detached node is lost).
  return {
    element,
    key: (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        // What Enter or a scan just asked for is in the cart before charging.
        void entry.settled().then(() => action.charge());
      } else entry.key(e);
    },
    scan: (code) => entry.scanned(code),
    catalogChanged: () => entry.refresh(),
    attached: () => entry.attached(),
  };
}
