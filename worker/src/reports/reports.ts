// A report page is the merge of the issuer's month objects' slices: each month answers the rows
// after the cursor in report order (one RPC per month, all in parallel), and the page takes the
// first rows of the merged order. The keyset cursor (sort key, tie-break) stays valid across months.
import { drDayStartUtc } from "@ecf/shared";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { encodeCursor, type ReportQuery } from "./paging.ts";
import type { CsvValue } from "./csv.ts";
import { REPORT_SPECS, type ReportName } from "../ledger/month/report-specs.ts";

export { REPORT_SPECS as REPORTS, type ReportName };

/** Local dates compared with a yyyy-MM-dd column: inclusive on both ends. */
const dateColumnBounds = (desde?: string, hasta?: string) => ({
  from: desde,
  until: hasta ? `${hasta}\uffff` : undefined,
});

/** Local dates against a UTC timestamp column: [desde 00:00, hasta+1 00:00) in Santo Domingo time. */
const timestampBounds = (desde?: string, hasta?: string) => ({
  from: desde ? drDayStartUtc(desde) : undefined,
  until: hasta ? drDayStartUtc(hasta, 1) : undefined,
});

export interface ReportPage {
  items: Record<string, CsvValue>[];
  /** Rows matching the filters, across all pages. */
  total: number;
  pageSize: number;
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** Orders two rows by (sort key, tie-break), as every month object's SQL does. */
function compareRows(sort: string, tie: string) {
  return (a: Record<string, CsvValue>, b: Record<string, CsvValue>) => {
    const [sa, sb] = [String(a[sort]), String(b[sort])];
    if (sa !== sb) return sa < sb ? -1 : 1;
    const [ta, tb] = [a[tie]!, b[tie]!];
    return ta === tb ? 0 : ta < tb ? -1 : 1;
  };
}

export async function readReport(
  env: Env,
  name: ReportName,
  companyId: string,
  query: ReportQuery,
): Promise<ReportPage> {
  const spec = REPORT_SPECS[name];
  const { from, until } =
    spec.dateBounds === "date" ? dateColumnBounds(query.desde, query.hasta) : timestampBounds(query.desde, query.hasta);
  // Receipts and purchases live in their FechaEmision's month, audit entries in their UTC month:
  // either way the bounds' own months bound the month objects to ask.
  const months = await issuerLedger(env, companyId).index().months(from?.slice(0, 7), until?.slice(0, 7));
  // One row more than the page tells whether there is a next page without a second query.
  const slices = await Promise.all(
    months.map((month) =>
      receiptMonth(env, companyId, month)
        .reports()
        .reportSlice(name, {
          from,
          until,
          filters: query.filters,
          after: query.after,
          limit: query.pageSize + 1,
        }),
    ),
  );
  const sortOut = Object.keys(spec.columns).find((k) => spec.columns[k] === spec.sortColumn)!;
  const tieOut = Object.keys(spec.columns).find((k) => spec.columns[k] === spec.tieColumn)!;
  const rows = slices.flatMap((s) => s.rows as Record<string, CsvValue>[]).sort(compareRows(sortOut, tieOut));
  // SQLite has no booleans: the purchase's "counts" flag comes as 1 or 0.
  if (name === "compras") for (const row of rows) row.confirmada = row.confirmada === 1;
  const items = rows.slice(0, query.pageSize);
  const last = items[items.length - 1];
  return {
    items,
    total: slices.reduce((sum, s) => sum + s.total, 0),
    pageSize: query.pageSize,
    nextCursor:
      rows.length > query.pageSize && last
        ? encodeCursor(name, [String(last[sortOut]), last[tieOut] as string | number])
        : null,
  };
}
