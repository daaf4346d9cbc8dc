// The Venta tab: the sale being built (kept across reloads, emptied once charged) and the sale
// screen that edits it; with no shift open the tab is the opening form, since no sale is rung up
// outside a shift.
import type { DeviceApi } from "../api.ts";
import type { PosDatabase, Sale, Shift } from "../db.ts";
import { loadCart, saveCart } from "../sale/cart-store.ts";
import { emptySale, type SaleRequest } from "../sale/draft.ts";
import { type SaleScreen, saleScreen } from "./sale-screen.ts";
import { lookupQueue } from "./sale/lookups.ts";
import type { EntryOnScreen } from "./sale/product-entry.ts";
import { openShiftScreen } from "./shift-screen.ts";
import type { TillIssuer } from "./till-issuer.ts";

export interface SellTabOptions {
  /** The pairing a new shift is opened under. */
  deviceId: string | undefined;
  api: DeviceApi;
  issuer: TillIssuer;
  /** A shift was opened from the tab. */
  shiftChanged: (shift: Shift) => void;
  /** A sale was charged: the app shows its receipt (and hands it to the sync). */
  issued: (sale: Sale) => Promise<void>;
}

/** The tab, which keeps the sale being built across redraws. */
export interface SellTab {
  /** The sale screen, or the opening form while `shift` is undefined. */
  view(shift: Shift | undefined): Promise<SaleScreen | HTMLElement>;
}

export function sellTab(db: PosDatabase, options: SellTabOptions): SellTab {
  let sale = emptySale();
  // What Enter and the scanner asked for: a lookup still running when the screen is redrawn adds
  // to the redrawn screen's cart.
  const lookups = lookupQueue<EntryOnScreen>();
  // The cart as it was before a reload, read once.
  const cartLoaded = loadCart(db).then((cart) => {
    if (cart) sale = cart;
  });
  // One receipt per cart, whatever the keyboard repeats; the cart starts empty again once it is signed.
  const charge = (req: SaleRequest) =>
    options.issuer.once(async () => {
      const issued = await options.issuer.sale(req);
      sale = emptySale();
      await saveCart(db, sale);
      await options.issued(issued);
    });
  return {
    view: async (shift) => {
      if (!shift) return openShiftScreen(db, options.deviceId, options.shiftChanged);
      await cartLoaded;
      return saleScreen(db, sale, charge, {
        findTaxpayer: (rnc) => options.api.taxpayer(rnc),
        changed: (state) => void saveCart(db, state),
        lookups,
      });
    },
  };
}
