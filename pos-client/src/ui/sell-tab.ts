// The Venta tab: the sale being built (kept across reloads, emptied once charged) and the sale
// screen that edits it; with no shift open the tab is the opening form, since no sale is rung up
// outside a shift.
import type { DeviceApi } from "../api.ts";
import type { PosDatabase, Sale, Shift } from "../db.ts";
import { loadCart, saveCart } from "../sale/cart-store.ts";
import { emptySale, type SaleRequest } from "../sale/draft.ts";
import { type SaleScreen, saleScreen } from "./sale-screen.ts";
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

export class SellTab {
  private sale = emptySale();
  /** The cart as it was before a reload, read once. */
  private readonly cartLoaded: Promise<void>;

  constructor(
    private readonly db: PosDatabase,
    private readonly options: SellTabOptions,
  ) {
    this.cartLoaded = loadCart(db).then((cart) => {
      if (cart) this.sale = cart;
    });
  }

  /** The sale screen, or the opening form while `shift` is undefined. */
  async view(shift: Shift | undefined): Promise<SaleScreen | HTMLElement> {
    if (!shift) return openShiftScreen(this.db, this.options.deviceId, this.options.shiftChanged);
    await this.cartLoaded;
    return saleScreen(this.db, this.sale, (req) => this.charge(req), {
      findTaxpayer: (rnc) => this.options.api.taxpayer(rnc),
      changed: (state) => void saveCart(this.db, state),
    });
  }

  /** One receipt per cart, whatever the keyboard repeats; the cart starts empty again once it is signed. */
  private charge(req: SaleRequest): Promise<void> {
    return this.options.issuer.once(async () => {
      const sale = await this.options.issuer.sale(req);
      this.sale = emptySale();
      await saveCart(this.db, this.sale);
      await this.options.issued(sale);
    });
  }
}
