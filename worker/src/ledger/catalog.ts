// The issuer's shared catalogue inside its IssuerLedger object: products, cashiers and the one
// version counter they share. Every changed row takes the next version, so "what changed after N"
// is a range scan on an index, and a till pages through the changes in order. A write that would
// change nothing keeps its version (a re-imported file costs the tills nothing).
import { and, asc, count, eq, gt, or, sql, type SQL } from "drizzle-orm";
import type { CashierRow, PinHash } from "../catalog/cashiers.ts";
import { stale, type Expected } from "../catalog/if-match.ts";
import type { ProductRow, ProductValues } from "../catalog/products.ts";
import { ApiProblem } from "../http/problem.ts";
import { cashiers, catalogVersion, products } from "./issuer-tables.ts";
import type { IssuerDb } from "./numbering.ts";

const VERSION_ROW = 1;

export function currentCatalogVersion(db: IssuerDb): number {
  return db.select({ version: catalogVersion.version }).from(catalogVersion).where(eq(catalogVersion.id, VERSION_ROW)).get()?.version ?? 0;
}

/** Takes `n` consecutive versions and answers the first. */
function takeVersions(db: IssuerDb, n: number): number {
  const first = currentCatalogVersion(db) + 1;
  const version = first + n - 1;
  db.insert(catalogVersion).values({ id: VERSION_ROW, version }).onConflictDoUpdate({ target: catalogVersion.id, set: { version } }).run();
  return first;
}

// ------------------------------------------------------------------------------------ products

export function productById(db: IssuerDb, id: string): ProductRow | undefined {
  return db.select().from(products).where(eq(products.id, id)).get();
}

function codeTaken(code: string): ApiProblem {
  return new ApiProblem("conflict", {
    detail: `Another product already has code ${code}.`,
    errors: [{ path: "/code", code: "duplicate", message: "Codes are unique among the issuer's products." }],
  });
}

export function createProduct(db: IssuerDb, values: ProductValues, now: string): ProductRow {
  if (db.select({ id: products.id }).from(products).where(eq(products.code, values.code)).get()) throw codeTaken(values.code);
  const version = takeVersions(db, 1);
  return db
    .insert(products)
    .values({ id: crypto.randomUUID(), ...values, version, updatedAt: now })
    .returning()
    .get()!;
}

/** True when applying `changes` would leave the row as it is. */
function unchanged(row: ProductRow, changes: Partial<ProductValues>): boolean {
  return Object.entries(changes).every(([key, value]) => {
    const current = row[key as keyof ProductValues];
    return Array.isArray(value) ? JSON.stringify(value) === JSON.stringify(current) : value === current;
  });
}

/** Changes a product if it is still at the version the client read (`ifMatch` is the header, for the 412). */
export function updateProduct(db: IssuerDb, id: string, changes: Partial<ProductValues>, expected: Expected, ifMatch: string, now: string): ProductRow {
  const row = productById(db, id);
  if (!row) throw new ApiProblem("not_found", { detail: `No product ${id}.` });
  if (expected !== "*" && expected !== row.version) throw stale(ifMatch, row.version);
  if (changes.code !== undefined && changes.code !== row.code && db.select({ id: products.id }).from(products).where(eq(products.code, changes.code)).get()) {
    throw codeTaken(changes.code);
  }
  if (unchanged(row, changes)) return row;
  const version = takeVersions(db, 1);
  return db
    .update(products)
    .set({ ...changes, version, updatedAt: now })
    .where(eq(products.id, id))
    .returning()
    .get()!;
}

export interface ProductQuery {
  /** The last code of the previous page. */
  afterCode?: string;
  limit: number;
  q?: string;
  active?: boolean;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** A page of products in code order, and how many match the filters in all. */
export function listProducts(db: IssuerDb, query: ProductQuery): { rows: ProductRow[]; total: number } {
  const filters: SQL[] = [];
  if (query.active !== undefined) filters.push(eq(products.active, query.active));
  if (query.q) {
    const text = escapeLike(query.q);
    // The code from its start, the name anywhere, a barcode whole (inside the JSON array).
    filters.push(
      or(sql`${products.code} LIKE ${`${text}%`} ESCAPE '\\'`, sql`${products.name} LIKE ${`%${text}%`} ESCAPE '\\'`, sql`${products.barcodes} LIKE ${`%"${text}"%`} ESCAPE '\\'`)!,
    );
  }
  const where = filters.length ? and(...filters) : undefined;
  const total = db.select({ n: count() }).from(products).where(where).get()?.n ?? 0;
  const page = query.afterCode === undefined ? where : and(where, gt(products.code, query.afterCode));
  const rows = db.select().from(products).where(page).orderBy(asc(products.code)).limit(query.limit).all();
  return { rows, total };
}

export interface ImportOutcome {
  created: number;
  updated: number;
  unchanged: number;
  version: number;
}

/** Columns per products row: SQLite takes at most 100 bound parameters per statement. */
const ROWS_PER_INSERT = Math.floor(100 / 13);

/**
 * Upserts a whole file by code (validated by the worker; codes unique within it), in the file's
 * order: one version per changed row. The caller runs it in one transaction: all or nothing.
 */
export function importProducts(db: IssuerDb, rows: ProductValues[], now: string): ImportOutcome {
  const existing = new Map(
    db
      .select()
      .from(products)
      .all()
      .map((row) => [row.code, row]),
  );
  const changed = rows.filter((values) => {
    const row = existing.get(values.code);
    return !row || !unchanged(row, values);
  });
  let version = takeVersions(db, changed.length);
  const inserts: (typeof products.$inferInsert)[] = [];
  let updated = 0;
  for (const values of changed) {
    const row = existing.get(values.code);
    if (row) {
      db.update(products)
        .set({ ...values, version: version++, updatedAt: now })
        .where(eq(products.id, row.id))
        .run();
      updated++;
    } else inserts.push({ id: crypto.randomUUID(), ...values, version: version++, updatedAt: now });
  }
  for (let i = 0; i < inserts.length; i += ROWS_PER_INSERT)
    db.insert(products)
      .values(inserts.slice(i, i + ROWS_PER_INSERT))
      .run();
  return { created: inserts.length, updated, unchanged: rows.length - changed.length, version: currentCatalogVersion(db) };
}

/** Products in code order after `afterCode`, for the CSV export (read a page per RPC). */
export function productsAfter(db: IssuerDb, afterCode: string | null, limit: number): ProductRow[] {
  return db
    .select()
    .from(products)
    .where(afterCode === null ? undefined : gt(products.code, afterCode))
    .orderBy(asc(products.code))
    .limit(limit)
    .all();
}

// ------------------------------------------------------------------------------------ cashiers

export function listCashiers(db: IssuerDb): CashierRow[] {
  return db.select().from(cashiers).orderBy(asc(cashiers.name), asc(cashiers.id)).all();
}

export function createCashier(db: IssuerDb, name: string, pin: PinHash, now: string): CashierRow {
  const version = takeVersions(db, 1);
  return db
    .insert(cashiers)
    .values({ id: crypto.randomUUID(), name, pinIterations: pin.iterations, pinSalt: pin.salt, pinHash: pin.hash, active: true, version, updatedAt: now })
    .returning()
    .get()!;
}

export function updateCashier(db: IssuerDb, id: string, changes: { name?: string; active?: boolean; pin?: PinHash }, now: string): CashierRow {
  const row = db.select().from(cashiers).where(eq(cashiers.id, id)).get();
  if (!row) throw new ApiProblem("not_found", { detail: `No cashier ${id}.` });
  const set = {
    ...(changes.name === undefined ? {} : { name: changes.name }),
    ...(changes.active === undefined ? {} : { active: changes.active }),
    ...(changes.pin ? { pinIterations: changes.pin.iterations, pinSalt: changes.pin.salt, pinHash: changes.pin.hash } : {}),
  };
  if (Object.entries(set).every(([key, value]) => row[key as keyof CashierRow] === value)) return row;
  const version = takeVersions(db, 1);
  return db
    .update(cashiers)
    .set({ ...set, version, updatedAt: now })
    .where(eq(cashiers.id, id))
    .returning()
    .get()!;
}

// ------------------------------------------------------------------------- what a till pulls

export interface CatalogChanges {
  version: number;
  products: ProductRow[];
  cashiers: CashierRow[];
  nextSince: number;
  complete: boolean;
}

/**
 * The next `limit` changes after `since`, products and cashiers together in version order. A
 * `since` beyond the current version (a catalogue the till knew from elsewhere) starts from 0.
 */
export function catalogChanges(db: IssuerDb, since: number, limit: number): CatalogChanges {
  const version = currentCatalogVersion(db);
  const from = since > version ? 0 : since;
  const productRows = db.select().from(products).where(gt(products.version, from)).orderBy(asc(products.version)).limit(limit).all();
  const cashierRows = db.select().from(cashiers).where(gt(cashiers.version, from)).orderBy(asc(cashiers.version)).limit(limit).all();
  // Each version belongs to one row, so the first `limit` versions of both lists are the page.
  const versions = [...productRows.map((p) => p.version), ...cashierRows.map((c) => c.version)].sort((a, b) => a - b).slice(0, limit);
  const last = versions.at(-1);
  const nextSince = last ?? version;
  return {
    version,
    products: productRows.filter((p) => last !== undefined && p.version <= last),
    cashiers: cashierRows.filter((c) => last !== undefined && c.version <= last),
    nextSince,
    complete: nextSince >= version,
  };
}
