// The month's rows in the order DGII's monthly formats list their records, a page at a time, so
// the 606 and 607 stream instead of being sorted in memory. Each order is the one the formats
// sorted by before (a text key compared byte by byte, which SQLite's BINARY collation also does):
//   607:             FechaComprobante | e-NCF          → (issue_date, encf), the receipts_date index
//   606 purchases:   FechaComprobante | RNC | e-NCF    → one day at a time (purchases_date), then
//                                                        rnc_emisor || '|' || encf within the day
//   606 own E41/43/47: the same key, its RNC the counterparty (ownCounterparty in reports/dgii-606.ts)
import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type * as monthTables from "./month-tables.ts";
import { purchases, receipts } from "./month-tables.ts";
import type { Purchase, Receipt } from "./month-row-types.ts";

type MonthDb = DrizzleSqliteDODatabase<typeof monthTables>;

/** Where a page in a format's order starts: the previous page's last position (formatPosition). */
export type FormatAfter = readonly string[];

/** 607: sales after (issue date, e-NCF), in that order. */
export function salesInFormatOrder(db: MonthDb, where: SQL[], after: FormatAfter | undefined, limit: number) {
  const page = [...where];
  if (after) page.push(sql`(${receipts.issueDate}, ${receipts.encf}) > (${after[0]}, ${after[1]})`);
  return db
    .select()
    .from(receipts)
    .where(and(...page))
    .orderBy(asc(receipts.issueDate), asc(receipts.encf))
    .limit(limit)
    .all();
}

/** The 606's text key of an own receipt; `issuerRnc` is the counterparty of E43/E47 (and an E41 naming none). */
function ownKey(issuerRnc: string): SQL {
  const comprador = sql`CASE WHEN json_valid(${receipts.figures}) THEN json_extract(${receipts.figures}, '$.rncComprador') END`;
  const counterparty = sql`CASE WHEN ${receipts.tipoeCF} = '41' THEN coalesce(${comprador}, ${receipts.rncComprador}, ${issuerRnc}) ELSE ${issuerRnc} END`;
  return sql`replace(${receipts.issueDate}, '-', '') || '|' || ${counterparty} || '|' || ${receipts.encf}`;
}

/** 606: the issuer's own purchase documents (few: an issuer's E41/E43/E47) after a key, in key order. */
export function ownInFormatOrder(
  db: MonthDb,
  tipos: string[],
  issuerRnc: string,
  after: FormatAfter | undefined,
  limit: number,
): (Receipt & { formatKey: string })[] {
  const key = ownKey(issuerRnc);
  const where = [inArray(receipts.tipoeCF, tipos)];
  if (after) where.push(sql`${key} > ${after[0]}`);
  return db
    .select({ ...getTableColumns(receipts), formatKey: sql<string>`${key}` })
    .from(receipts)
    .where(and(...where))
    .orderBy(key)
    .limit(limit)
    .all();
}

const purchaseKey = sql`${purchases.rncEmisor} || '|' || ${purchases.encf}`;

/**
 * 606: purchases after (issue date, RNC|e-NCF). A day at a time, so a page sorts one day's
 * purchases (by the date index) instead of the month's; (rnc_emisor, encf) is unique, so the key is.
 */
export function purchasesInFormatOrder(db: MonthDb, after: FormatAfter | undefined, limit: number): Purchase[] {
  let day = after?.[0] ?? firstDayAfter(db, undefined);
  let key = after?.[1];
  while (day !== undefined) {
    const where = [eq(purchases.issueDate, day)];
    if (key !== undefined) where.push(sql`${purchaseKey} > ${key}`);
    const rows = db
      .select()
      .from(purchases)
      .where(and(...where))
      .orderBy(purchaseKey)
      .limit(limit)
      .all();
    if (rows.length) return rows;
    day = firstDayAfter(db, day);
    key = undefined;
  }
  return [];
}

function firstDayAfter(db: MonthDb, day: string | undefined): string | undefined {
  const row = db.get<{ day: string | null }>(
    day === undefined
      ? sql`SELECT min(issue_date) AS day FROM purchases`
      : sql`SELECT min(issue_date) AS day FROM purchases WHERE issue_date > ${day}`,
  );
  return row?.day ?? undefined;
}

/** The position after a row, to ask for the next page. */
export const formatPosition = {
  sale: (r: Receipt): FormatAfter => [r.issueDate, r.encf],
  purchase: (p: Purchase): FormatAfter => [p.issueDate, `${p.rncEmisor}|${p.encf}`],
};
