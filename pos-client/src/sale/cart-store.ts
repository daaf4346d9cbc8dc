// The cart on the screen survives a reload (a crash, a closed tab, a power cut): it is kept in
// IndexedDB as it changes and read back when the till opens. A charged sale empties it.
import type { PosDatabase } from "../db.ts";
import type { SaleScreenState } from "./draft.ts";

const CART = "cart";

export async function loadCart(db: PosDatabase): Promise<SaleScreenState | undefined> {
  const saved = await db.setting<SaleScreenState>(CART);
  return saved && Array.isArray(saved.lines) ? saved : undefined;
}

/** Writes are queued in order, so an older cart never overwrites a newer one. */
let last: Promise<unknown> = Promise.resolve();

export function saveCart(db: PosDatabase, state: SaleScreenState): Promise<void> {
  // A plain copy: the screen keeps mutating its own state object.
  const copy: SaleScreenState = JSON.parse(JSON.stringify(state));
  const write = last.then(() => db.setSetting(CART, copy));
  last = write.catch(() => {});
  return write;
}
