// The issuer's shared catalogue inside its IssuerLedger object: products, cashiers and the one
// version counter they share. Every changed row takes the next version, so "what changed after N"
// is a range scan on an index, and a till pages through the changes in order. A write that would
// change nothing keeps its version (a re-imported file costs the tills nothing).
import { and, asc, count, eq, gt, inArray, or, sql, type SQL } from "drizzle-orm";
import { lineProblem } from "./line-problem.ts";
import type { CashierRow, PinHash, ProductRow, ProductValues } from "./catalog-rows.ts";
import { type Refused, refuse } from "../../errors/refusal.ts";
import { cashiers, catalogVersion, products } from "./issuer-tables.ts";
import type { IssuerDb } from "./encf-allocation.ts";

const VERSION_ROW = 1;

export function currentCatalogVersion(db: IssuerDb): number {
  return (
    db.select({ version: catalogVersion.version }).from(catalogVersion).where(eq(catalogVersion.id, VERSION_ROW)).get()
      ?.version ?? 0
  );
}

/** Takes `n` consecutive versions and answers the first. */
function takeVersions(db: IssuerDb, n: number): number {
  const first = currentCatalogVersion(db) + 1;
  if (n === 0) return first;
  const version = first + n - 1;
  db.insert(catalogVersion)
    .values({ id: VERSION_ROW, version })
    .onConflictDoUpdate({ target: catalogVersion.id, set: { version } })
    .run();
  return first;
}

// ------------------------------------------------------------------------------------ products

export function productById(db: IssuerDb, id: string): ProductRow | null {
  return db.select().from(products).where(eq(products.id, id)).get() ?? null;
}

/** A version to match (If-Match), or "*" (any current version). */
export type Expected = number | "*";

/** 412 at the edge: the row is not at the version If-Match named (`current` null: it names none we could hold). */
export function staleVersion(ifMatch: string, current: number | null): Refused {
  return refuse("stale", {
    detail:
      current === null
        ? `If-Match ${ifMatch} names no version of this row.`
        : `The row is at version ${current}; If-Match named ${ifMatch}. Read it again and reapply the change.`,
    errors: [
      {
        path: "/headers/If-Match",
        code: "stale",
        message: current === null ? "Not a version ETag." : `The current ETag is "${current}".`,
      },
    ],
    extensions: current === null ? {} : { currentVersion: current },
  });
}

function codeTaken(code: string): Refused {
  return refuse("conflict", {
    detail: `Another product already has code ${code}.`,
    errors: [{ path: "/code", code: "duplicate", message: "Codes are unique among the issuer's products." }],
  });
}

/** Active products (other than `exceptId`) carrying one of `barcodes`: a scanned barcode must name one product. */
function barcodeOwners(db: IssuerDb, barcodes: string[], exceptId: string | null): { code: string; barcode: string }[] {
  if (!barcodes.length) return [];
  const list = sql.join(
    barcodes.map((b) => sql`${b}`),
    sql`, `,
  );
  return db.all<{ code: string; barcode: string }>(
    sql`SELECT p.code AS code, j.value AS barcode FROM products p, json_each(p.barcodes) j WHERE p.active = 1 AND p.id IS NOT ${exceptId} AND j.value IN (${list})`,
  );
}

function assertBarcodesFree(db: IssuerDb, barcodes: string[], exceptId: string | null): void {
  const taken = barcodeOwners(db, barcodes, exceptId);
  if (taken.length) {
    throw refuse("conflict", {
      detail: `Barcode ${taken.map((t) => `${t.barcode} is on product ${t.code}`).join(", ")}; a barcode names one active product.`,
      errors: taken.map((t) => ({
        path: `/barcodes/${barcodes.indexOf(t.barcode)}`,
        code: "duplicate",
        message: `On product ${t.code}.`,
      })),
    });
  }
}

export function createProduct(db: IssuerDb, values: ProductValues, now: string): ProductRow {
  if (db.select({ id: products.id }).from(products).where(eq(products.code, values.code)).get())
    throw codeTaken(values.code);
  if (values.active) assertBarcodesFree(db, values.barcodes, null);
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
export function updateProduct(
  db: IssuerDb,
  id: string,
  changes: Partial<ProductValues>,
  expected: Expected,
  ifMatch: string,
  now: string,
): ProductRow {
  const row = productById(db, id);
  if (!row) throw refuse("not_found", { detail: `No product ${id}.` });
  if (expected !== "*" && expected !== row.version) throw staleVersion(ifMatch, row.version);
  if (
    changes.code !== undefined &&
    changes.code !== row.code &&
    db.select({ id: products.id }).from(products).where(eq(products.code, changes.code)).get()
  ) {
    throw codeTaken(changes.code);
  }
  if (unchanged(row, changes)) return row;
  if ((changes.active ?? row.active) && (changes.barcodes !== undefined || changes.active !== undefined))
    assertBarcodesFree(db, changes.barcodes ?? row.barcodes, id);
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
      or(
        sql`${products.code} LIKE ${`${text}%`} ESCAPE '\\'`,
        sql`${products.name} LIKE ${`%${text}%`} ESCAPE '\\'`,
        sql`${products.barcodes} LIKE ${`%"${text}"%`} ESCAPE '\\'`,
      )!,
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
 * order: one version per changed row. The caller runs it in one transaction: all or nothing, so a
 * barcode the file gives a product while another active product keeps it undoes the whole file.
 * `lines` are the file lines of `rows`, for that problem.
 */
export function importProducts(db: IssuerDb, rows: ProductValues[], lines: number[], now: string): ImportOutcome {
  // Only the file's codes are read (100 bound parameters per statement), not the whole catalogue.
  const existing = new Map<string, ProductRow>();
  for (let i = 0; i < rows.length; i += 100) {
    const codes = rows.slice(i, i + 100).map((r) => r.code);
    for (const row of db.select().from(products).where(inArray(products.code, codes)).all())
      existing.set(row.code, row);
  }
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
  if (changed.length) assertNoSharedBarcodes(db, rows, lines);
  return {
    created: inserts.length,
    updated,
    unchanged: rows.length - changed.length,
    version: currentCatalogVersion(db),
  };
}

/** After an import's writes: no barcode on two active products, else a problem on the file's lines. */
function assertNoSharedBarcodes(db: IssuerDb, rows: ProductValues[], lines: number[]): void {
  const shared = db.all<{ barcode: string; codes: string }>(
    sql`SELECT j.value AS barcode, json_group_array(p.code) AS codes FROM products p, json_each(p.barcodes) j WHERE p.active = 1 GROUP BY j.value HAVING count(*) > 1 LIMIT 1000`,
  );
  if (!shared.length) return;
  const lineOf = new Map(rows.map((r, i) => [r.code, lines[i]!]));
  const errors = shared.map(({ barcode, codes }) => {
    const owners = JSON.parse(codes) as string[];
    const mine = owners.find((code) => lineOf.has(code)) ?? owners[0]!;
    const others = owners.filter((code) => code !== mine);
    const line = lineOf.get(mine) ?? 0;
    return lineProblem(
      line,
      "barcodes",
      `Barcode ${barcode} is also on active product ${others.join(", ")}, already in the catalogue.`,
      "duplicate",
    );
  });
  throw refuse("not_allowed", {
    detail: `${errors.length} barcode(s) of the file are on other active products; nothing was imported.`,
    errors: errors.sort((a, b) => a.line - b.line),
    extensions: { problemCount: errors.length },
  });
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
    .values({
      id: crypto.randomUUID(),
      name,
      pinIterations: pin.iterations,
      pinSalt: pin.salt,
      pinHash: pin.hash,
      active: true,
      version,
      updatedAt: now,
    })
    .returning()
    .get()!;
}

export function updateCashier(
  db: IssuerDb,
  id: string,
  changes: { name?: string; active?: boolean; pin?: PinHash },
  now: string,
): CashierRow {
  const row = db.select().from(cashiers).where(eq(cashiers.id, id)).get();
  if (!row) throw refuse("not_found", { detail: `No cashier ${id}.` });
  const set = {
    ...(changes.name === undefined ? {} : { name: changes.name }),
    ...(changes.active === undefined ? {} : { active: changes.active }),
    ...(changes.pin
      ? { pinIterations: changes.pin.iterations, pinSalt: changes.pin.salt, pinHash: changes.pin.hash }
      : {}),
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
  const productRows = db
    .select()
    .from(products)
    .where(gt(products.version, from))
    .orderBy(asc(products.version))
    .limit(limit)
    .all();
  const cashierRows = db
    .select()
    .from(cashiers)
    .where(gt(cashiers.version, from))
    .orderBy(asc(cashiers.version))
    .limit(limit)
    .all();
  // Each version belongs to one row, so the first `limit` versions of both lists are the page.
  const versions = [...productRows.map((p) => p.version), ...cashierRows.map((c) => c.version)]
    .sort((a, b) => a - b)
    .slice(0, limit);
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
