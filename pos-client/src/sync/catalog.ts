// The issuer's catalogue on the till: products and cashiers pulled from GET /devices/catalog by a
// version cursor (at pairing, at start, when the network returns, and every minute while online).
// Each page is applied in one IndexedDB transaction together with the cursor, so a pull cut short
// resumes where it stopped and never applies a change twice or skips one. Offline, the till sells
// with what it has.
import type { CatalogCashier, CatalogProduct, DeviceCatalog } from "../api.ts";
import type { PosDatabase, Product } from "../db.ts";

/** Settings keys: the version the till has everything up to, when that was last confirmed, the device's permission, and whose catalogue it is. */
export const CATALOG_VERSION = "catalog-version";
export const CATALOG_UPDATED_AT = "catalog-updated-at";
export const CAN_EDIT_PRICES = "can-edit-prices";
export const CATALOG_COMPANY = "catalog-company";

export const CATALOG_INTERVAL_MS = 60_000;
/** Products and cashiers per page asked for; the server may send fewer. */
export const CATALOG_PAGE = 500;
/** A safety stop for a server that keeps saying `complete: false` without moving its cursor. */
const MAX_PAGES = 1_000;

export type FetchCatalogPage = (since: number, limit: number) => Promise<DeviceCatalog>;

export interface PullReport {
  version: number;
  pages: number;
  /** Products stored or replaced, and products taken out of sale (inactive). */
  updated: number;
  removed: number;
  cashiers: number;
  canEditPrices: boolean;
}

const ITBIS: Record<CatalogProduct["itbisRate"], Product["itbis"]> = { "18": "18", "16": "16", "0": "0", exempt: "E" };

/** The till's product from the server's. */
export function productFromCatalog(p: CatalogProduct): Product {
  return {
    code: p.code,
    name: p.name,
    price: p.price,
    itbis: ITBIS[p.itbisRate],
    unit: p.unit,
    kind: p.kind === "service" ? "2" : "1",
    priceIncludesItbis: p.priceIncludesItbis,
    id: p.id,
    version: p.version,
    barcodes: p.barcodes,
  };
}

/**
 * Pulls every change after the stored version, page by page, for the paired issuer. A till paired
 * to another issuer than the one its catalogue came from starts again from version 0 with an empty
 * catalogue. Throws what the fetch throws (offline, server errors): what was applied stays.
 */
export async function pullCatalog(
  db: PosDatabase,
  companyId: string,
  fetchPage: FetchCatalogPage,
  now: () => Date = () => new Date(),
): Promise<PullReport> {
  const report: PullReport = { version: 0, pages: 0, updated: 0, removed: 0, cashiers: 0, canEditPrices: false };
  let since = await storedVersion(db, companyId);
  for (let round = 1; ; round++) {
    if (round > MAX_PAGES) throw new Error(`The catalogue did not advance past version ${since}.`);
    const page = await fetchPage(since, CATALOG_PAGE);
    const applied = await db.transaction("rw", db.products, db.cashiers, db.settings, async () => {
      // Another tab may have applied pages meanwhile: this page is then asked for again from there.
      if ((await storedVersion(db, companyId)) !== since) return false;
      const owner = await db.setting<string>(CATALOG_COMPANY);
      if (owner !== companyId) {
        // Another issuer's catalogue (the till was paired again): its products do not belong here.
        // A till's first pull keeps what was typed in by hand before there was a catalogue.
        if (owner !== undefined) {
          await db.products.clear();
          await db.cashiers.clear();
        }
        await db.setSetting(CATALOG_COMPANY, companyId);
      }
      const counts = await applyPage(db, page);
      report.updated += counts.updated;
      report.removed += counts.removed;
      report.cashiers += counts.cashiers;
      await db.setSetting(CATALOG_VERSION, page.nextSince);
      await db.setSetting(CAN_EDIT_PRICES, page.device.canEditPrices);
      if (page.complete) await db.setSetting(CATALOG_UPDATED_AT, now().toISOString());
      return true;
    });
    if (!applied) {
      since = await storedVersion(db, companyId);
      continue;
    }
    report.pages++;
    report.version = page.version;
    report.canEditPrices = page.device.canEditPrices;
    if (page.complete) return report;
    if (page.nextSince <= since) throw new Error(`The catalogue did not advance past version ${since}.`);
    since = page.nextSince;
  }
}

/** The version this till has the issuer's catalogue up to (0: none, or another issuer's). */
async function storedVersion(db: PosDatabase, companyId: string): Promise<number> {
  return (await db.setting<string>(CATALOG_COMPANY)) === companyId
    ? ((await db.setting<number>(CATALOG_VERSION)) ?? 0)
    : 0;
}

/**
 * Stores a page's changes. A product made inactive is taken out of the till's products, so the
 * sale screen no longer finds it; a product whose code changed leaves no row under its old code.
 * A row already newer than the change is kept. The page is worked out in memory over the rows it
 * touches (read in one query) and written in two bulk requests: a first sync of 50,000 products
 * spent most of its time in two IndexedDB requests per product.
 */
async function applyPage(
  db: PosDatabase,
  page: DeviceCatalog,
): Promise<{ updated: number; removed: number; cashiers: number }> {
  const rows = new PageRows(
    await db.products
      .where("id")
      .anyOf(page.products.map((p) => p.id))
      .toArray(),
  );
  let updated = 0;
  let removed = 0;
  for (const p of page.products) {
    const held = rows.ofId(p.id);
    if (held.some((r) => (r.version ?? 0) > p.version)) continue;
    const stale = held.filter((r) => r.code !== p.code || !p.active).map((r) => r.code);
    for (const code of stale) rows.delete(code);
    if (p.active) {
      // A hand-typed product of this till under the same code is replaced by the issuer's.
      rows.put(productFromCatalog(p));
      updated++;
    } else removed += stale.length;
  }
  await db.products.bulkDelete(rows.deleted());
  await db.products.bulkPut(rows.written());
  const cashiers = page.cashiers.map(cashierFromCatalog);
  const known = new Map(
    (await db.cashiers.bulkGet(cashiers.map((c) => c.id))).flatMap((c) => (c ? [[c.id, c.version] as const] : [])),
  );
  const newer = cashiers.filter((c) => (known.get(c.id) ?? -1) <= c.version);
  await db.cashiers.bulkPut(newer);
  return { updated, removed, cashiers: newer.length };
}

/**
 * The products a page touches, as they stand after each of its changes so far: what the page would
 * read back if every change were written at once, and in the end what to write.
 */
class PageRows {
  private readonly byCode = new Map<string, Product>();
  /** Every code the page put or deleted, with its final row (undefined: deleted). */
  private readonly changed = new Map<string, Product | undefined>();

  constructor(rows: Product[]) {
    for (const r of rows) this.byCode.set(r.code, r);
  }

  ofId(id: string): Product[] {
    return [...this.byCode.values()].filter((r) => r.id === id);
  }

  put(row: Product): void {
    this.byCode.set(row.code, row);
    this.changed.set(row.code, row);
  }

  delete(code: string): void {
    this.byCode.delete(code);
    this.changed.set(code, undefined);
  }

  deleted(): string[] {
    return [...this.changed].flatMap(([code, row]) => (row ? [] : [code]));
  }

  written(): Product[] {
    return [...this.changed.values()].filter((row): row is Product => row !== undefined);
  }
}

/** Inactive cashiers are kept (a shift names them) but cannot log in: SHIFTS checks `active`. */
function cashierFromCatalog(c: CatalogCashier) {
  return { id: c.id, name: c.name, active: c.active, version: c.version, pin: c.pin };
}

export interface CatalogState {
  version: number;
  updatedAt: string | undefined;
  canEditPrices: boolean;
}

export async function catalogState(db: PosDatabase): Promise<CatalogState> {
  return {
    version: (await db.setting<number>(CATALOG_VERSION)) ?? 0,
    updatedAt: await db.setting<string>(CATALOG_UPDATED_AT),
    canEditPrices: (await db.setting<boolean>(CAN_EDIT_PRICES)) ?? false,
  };
}

/**
 * When to pull: at start, when the browser comes online, and every CATALOG_INTERVAL_MS while online.
 * One pull at a time per tab; `onPulled` hears of each successful pull (the UI shows the time and
 * re-renders what changed). Failures wait for the next occasion.
 */
export class CatalogSync {
  private timer: ReturnType<typeof setInterval> | undefined;
  private pending: Promise<PullReport | undefined> | undefined;
  private stopped = true;

  constructor(
    private readonly db: PosDatabase,
    private readonly companyId: string,
    private readonly fetchPage: FetchCatalogPage,
    private readonly onPulled: (report: PullReport) => void = () => {},
    private readonly intervalMs = CATALOG_INTERVAL_MS,
  ) {}

  start(): void {
    this.stopped = false;
    addEventListener("online", this.kick);
    this.timer = setInterval(this.kick, this.intervalMs);
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    removeEventListener("online", this.kick);
    clearInterval(this.timer);
  }

  readonly kick = (): void => {
    if (this.pending || this.stopped) return;
    if (typeof navigator !== "undefined" && navigator.onLine === false) return;
    this.pending = this.pull().finally(() => (this.pending = undefined));
  };

  /** The pull in progress, if any (tests wait for it). */
  get running(): Promise<PullReport | undefined> | undefined {
    return this.pending;
  }

  private async pull(): Promise<PullReport | undefined> {
    try {
      const report = await pullCatalog(this.db, this.companyId, this.fetchPage);
      if (!this.stopped) this.onPulled(report);
      return report;
    } catch {
      return undefined;
    }
  }
}
