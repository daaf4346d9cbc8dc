// What a month object answers for the monthly DGII formats (606/607/608) and the month's archive:
// its rows page by page in a fixed order, the E32 summary summed in SQL, the rows whose document
// figures are still to be read, and the few writes the formats need (a purchase's classification,
// a buyer's withholding on a sale). Functions over the object's drizzle database, called from
// ReceiptMonth's methods, so the object's file keeps only their one-line doors.
import { and, asc, eq, gt, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type * as monthTables from "./month-tables.ts";
import { purchases, receipts } from "./month-tables.ts";
import type { NewPurchase, NewReceipt, Purchase, Receipt } from "./month-row-types.ts";
import { ownInFormatOrder, purchasesInFormatOrder, salesInFormatOrder, type FormatAfter } from "./format-order.ts";

type MonthDb = DrizzleSqliteDODatabase<typeof monthTables>;

/** Rows per page: a receipt row is about 1.5 KB with its figures, far under the RPC limit. */
export const MONTH_PAGE_SIZE = 500;

export interface MonthPageQuery {
  /** The last key of the previous page (e-NCF for receipts, id for purchases). */
  after?: string;
  limit?: number;
  /** Only receipts of these types. */
  tipos?: string[];
  /** Leave out the E32 sent as RFCE that DGII accepted (the 607 sums them in SQL instead). */
  withoutAcceptedRfce?: boolean;
  /**
   * In the order a monthly format lists its records instead (ledger/month/format-order.ts), after
   * `formatAfter`: "607" sales; "606" purchases, or the own receipts of `tipos` keyed by `issuerRnc`.
   */
  formatOrder?: "606" | "607";
  formatAfter?: FormatAfter;
  issuerRnc?: string;
}

/** A receipt as paged; in the 606's order, with the key it is sorted by (the next page's formatAfter). */
export type PagedReceipt = Receipt & { formatKey?: string };

export function receiptsPage(db: MonthDb, query: MonthPageQuery): PagedReceipt[] {
  const limit = Math.min(query.limit ?? MONTH_PAGE_SIZE, MONTH_PAGE_SIZE);
  if (query.formatOrder === "606")
    return ownInFormatOrder(db, query.tipos ?? [], query.issuerRnc ?? "", query.formatAfter, limit);
  const where: SQL[] = [];
  if (query.after) where.push(gt(receipts.encf, query.after));
  if (query.tipos) where.push(inArray(receipts.tipoeCF, query.tipos));
  if (query.withoutAcceptedRfce)
    where.push(sql`NOT (${receipts.dgiiPath} = 'rfce' AND ${receipts.status} IN ('accepted', 'conditional'))`);
  if (query.formatOrder === "607") return salesInFormatOrder(db, where, query.formatAfter, limit);
  return db
    .select()
    .from(receipts)
    .where(where.length ? and(...where) : undefined)
    .orderBy(asc(receipts.encf))
    .limit(limit)
    .all();
}

export function purchasesPage(db: MonthDb, query: MonthPageQuery): Purchase[] {
  const limit = Math.min(query.limit ?? MONTH_PAGE_SIZE, MONTH_PAGE_SIZE);
  if (query.formatOrder === "606") return purchasesInFormatOrder(db, query.formatAfter, limit);
  return db
    .select()
    .from(purchases)
    .where(query.after ? gt(purchases.id, query.after) : undefined)
    .orderBy(asc(purchases.id))
    .limit(limit)
    .all();
}

export interface FigureRef {
  table: "receipts" | "purchases";
  id: string;
  xmlKey: string;
}

/**
 * Rows without figures (recorded before 1.8.0), up to `limit`; the partial indexes on
 * `figures IS NULL` find them without reading the month. (A new figures layout would come with a
 * migration setting the older ones to NULL, so they are read again.)
 */
export function rowsWithoutFigures(db: MonthDb, limit: number): FigureRef[] {
  const own = db
    .select({ id: receipts.id, xmlKey: receipts.xmlKey })
    .from(receipts)
    .where(isNull(receipts.figures))
    .limit(limit)
    .all();
  const bought = db
    .select({ id: purchases.id, xmlKey: purchases.xmlKey })
    .from(purchases)
    .where(isNull(purchases.figures))
    .limit(Math.max(0, limit - own.length))
    .all();
  return [
    ...own.map((r) => ({ table: "receipts" as const, ...r })),
    ...bought.map((p) => ({ table: "purchases" as const, ...p })),
  ];
}

export function countWithoutFigures(db: MonthDb): number {
  const count = (table: "receipts" | "purchases") =>
    Number(db.get<{ n: number }>(sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE figures IS NULL`)?.n ?? 0);
  return count("receipts") + count("purchases");
}

/** Rows whose figures are still to be read, and how many there are in all. */
export function figuresToRead(db: MonthDb, limit: number): { rows: FigureRef[]; total: number } {
  return { rows: rowsWithoutFigures(db, limit), total: countWithoutFigures(db) };
}

export function storeFigures(
  db: MonthDb,
  rows: { table: "receipts" | "purchases"; id: string; figures: string }[],
): void {
  for (const row of rows) {
    if (row.table === "receipts")
      db.update(receipts).set({ figures: row.figures }).where(eq(receipts.id, row.id)).run();
    else db.update(purchases).set({ figures: row.figures }).where(eq(purchases.id, row.id)).run();
  }
}

export type PurchaseClassificationChanges = Pick<
  NewPurchase,
  | "tipoBienesServicios"
  | "fechaPago"
  | "formaPago"
  | "tipoRetencionIsr"
  | "itbisRetenido"
  | "montoRetencionRenta"
  | "itbisAlCosto"
  | "itbisProporcionalidad"
  | "classifiedAt"
>;

export function classifyPurchase(db: MonthDb, id: string, changes: PurchaseClassificationChanges): Purchase | null {
  return db.update(purchases).set(changes).where(eq(purchases.id, id)).returning().get() ?? null;
}

export type SaleWithholdingChanges = Pick<
  NewReceipt,
  "fechaRetencion" | "itbisRetenidoTerceros" | "retencionRentaTerceros"
>;

export function recordSaleWithholding(db: MonthDb, encf: string, changes: SaleWithholdingChanges): Receipt | null {
  return (
    db
      .update(receipts)
      .set({ ...changes, updatedAt: new Date().toISOString() })
      .where(eq(receipts.encf, encf))
      .returning()
      .get() ?? null
  );
}

/**
 * Sums over the month's E32 sent as RFCE (under 250,000) that DGII accepted, which the 607 does
 * not list one by one. In SQL, so a retailer's million consumer receipts never cross the RPC:
 * figures are written with exactly two decimals, so removing the point gives exact integer cents
 * and SQLite's integer SUM is exact; the sums come back as text, never through a float.
 */
export interface RfceSums {
  count: number;
  /** Accepted RFCE receipts whose figures are still to be read (not in the sums). */
  withoutFigures: number;
  /** Cents per figure (montoFacturado, itbisFacturado, isc, otrosImpuestos, propinaLegal, montoTotal). */
  cents: Record<"montoFacturado" | "itbisFacturado" | "isc" | "otrosImpuestos" | "propinaLegal" | "montoTotal", string>;
  /** Cents paid per e-CF FormaPago, over the receipts with a TablaFormasPago. */
  byFormaPago: { formaPago: string; cents: string }[];
  /** MontoTotal cents per TipoPago of the receipts without a TablaFormasPago. */
  byTipoPago: { tipoPago: string | null; cents: string }[];
}

const RFCE_ACCEPTED_ALL = sql`r.tipo_ecf = '32' AND r.dgii_path = 'rfce' AND r.status IN ('accepted', 'conditional')`;
const RFCE_ACCEPTED = sql`${RFCE_ACCEPTED_ALL} AND r.figures IS NOT NULL`;
const centsOf = (path: string) => sql.raw(`CAST(replace(json_extract(r.figures, '$.${path}'), '.', '') AS INTEGER)`);
const sumText = (expression: SQL) => sql`CAST(COALESCE(SUM(${expression}), 0) AS TEXT)`;

export function rfceSums(db: MonthDb): RfceSums {
  const figures = ["montoFacturado", "itbisFacturado", "isc", "otrosImpuestos", "propinaLegal", "montoTotal"] as const;
  const columns = sql.join(
    figures.map((f) => sql`${sumText(centsOf(f))} AS ${sql.raw(`"${f}"`)}`),
    sql`, `,
  );
  const totals = db.get<Record<string, string | number>>(
    sql`SELECT count(*) AS count, ${columns} FROM receipts AS r WHERE ${RFCE_ACCEPTED}`,
  )!;
  const byFormaPago = db.all<{ formaPago: string; cents: string }>(sql`
    SELECT json_extract(f.value, '$.formaPago') AS formaPago,
           ${sumText(sql.raw(`CAST(replace(json_extract(f.value, '$.montoPago'), '.', '') AS INTEGER)`))} AS cents
    FROM receipts AS r, json_each(r.figures, '$.formasPago') AS f
    WHERE ${RFCE_ACCEPTED} GROUP BY 1 ORDER BY 1`);
  const byTipoPago = db.all<{ tipoPago: string | null; cents: string }>(sql`
    SELECT json_extract(r.figures, '$.tipoPago') AS tipoPago, ${sumText(centsOf("montoTotal"))} AS cents
    FROM receipts AS r
    WHERE ${RFCE_ACCEPTED} AND json_array_length(r.figures, '$.formasPago') = 0 GROUP BY 1 ORDER BY 1`);
  const unread = db.get<{ n: number }>(
    sql`SELECT count(*) AS n FROM receipts AS r WHERE ${RFCE_ACCEPTED_ALL} AND r.figures IS NULL`,
  );
  return {
    count: Number(totals.count),
    withoutFigures: Number(unread?.n ?? 0),
    cents: Object.fromEntries(figures.map((f) => [f, String(totals[f])])) as RfceSums["cents"],
    byFormaPago,
    byTipoPago,
  };
}

/** Receipts of one type and number range that DGII voided with the range (status voided). */
export function voidedReceipts(
  db: MonthDb,
  tipoeCF: string,
  firstNumber: number,
  lastNumber: number,
): { encf: string; issueDate: string }[] {
  const encf = (n: number) => `E${tipoeCF}${String(n).padStart(10, "0")}`;
  return db
    .select({ encf: receipts.encf, issueDate: receipts.issueDate })
    .from(receipts)
    .where(
      and(eq(receipts.status, "voided"), sql`${receipts.encf} BETWEEN ${encf(firstNumber)} AND ${encf(lastNumber)}`),
    )
    .all();
}
