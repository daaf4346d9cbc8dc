// One month's slice of a report page (GET /reports/*): the rows after the cursor in the report's
// total order, and the count. The report's table, columns and filters come from report-specs.ts,
// constants only: every value from the request is a bound parameter. Every page is a range of one
// index in report order (keyset: the cursor is a row-value bound, never an OFFSET), so the last
// page of a month of millions costs what the first does; worker/test/month-report-plans.test.ts
// asserts the query plans.
import { sql, type SQL } from "drizzle-orm";
import {
  ESTADO_SQL,
  REPORT_SPECS,
  type ReportFilter,
  type ReportName,
  type ReportSlice,
  type ReportSliceQuery,
} from "./report-specs.ts";
import type { MonthDb } from "./month-receipts.ts";

/** The SQL of a slice: its page of rows, and the statement that counts every row it filters. */
export function reportSliceSql(name: ReportName, query: ReportSliceQuery): { page: SQL; count: SQL } {
  const spec = REPORT_SPECS[name];
  const sort = sql.raw(spec.sortColumn);
  const tie = sql.raw(spec.tieColumn);
  // The page's lower bound is the cursor when there is one at or after `from`: one row-value bound
  // that SQLite seeks to in the index (beside a scalar `from`, it would seek to `from` and walk on).
  const keyset = query.after && (query.from === undefined || query.after[0] >= query.from) ? query.after : undefined;
  const lower = query.from !== undefined ? [sql`${sort} >= ${query.from}`] : [];
  const upper = query.until !== undefined ? [sql`${sort} < ${query.until}`] : [];
  const given = (Object.entries(query.filters ?? {}) as [ReportFilter, string | undefined][]).filter(
    ([name, value]) => spec.filters[name] && value !== undefined,
  ) as [ReportFilter, string][];
  const filters: SQL[] = [];
  for (const [name, value] of given) {
    const by = spec.filters[name]!;
    if (by.kind === "estado") filters.push(sql.raw(Object.hasOwn(ESTADO_SQL, value) ? ESTADO_SQL[value]! : "0 = 1"));
    else if (by.kind === "equals") filters.push(sql`${sql.raw(by.column)} = ${value}`);
    else filters.push(sql`substr(${sql.raw(by.column)}, 1, ${value.length}) = ${value}`);
  }
  const filter = [sql`1 = 1`, ...lower, ...upper, ...filters];
  const page = [
    sql`1 = 1`,
    ...(keyset ? [sql`(${sort}, ${tie}) > (${keyset[0]}, ${keyset[1]})`] : lower),
    ...upper,
    ...filters,
  ];
  const columns = sql.raw(
    Object.entries(spec.columns)
      .map(([out, column]) => `${column} AS "${out}"`)
      .join(", "),
  );
  const table = sql.raw(spec.table);
  const counts = spec.counts;
  const counted = counts && given.every(([name]) => counts.filters.includes(name));
  return {
    page: sql`SELECT ${columns} FROM ${table} WHERE ${sql.join(page, sql` AND `)} ORDER BY ${sort}, ${tie} LIMIT ${query.limit}`,
    // The same bounds and filters over the counts table: the columns they name are in both.
    count: counted
      ? sql`SELECT COALESCE(SUM(${sql.raw(counts.sum)}), 0) AS total FROM ${sql.raw(counts.table)} WHERE ${sql.join(filter, sql` AND `)}`
      : sql`SELECT COUNT(*) AS total FROM ${table} WHERE ${sql.join(filter, sql` AND `)}`,
  };
}

export function reportSlice(db: MonthDb, name: ReportName, query: ReportSliceQuery): ReportSlice {
  const { page, count } = reportSliceSql(name, query);
  const rows = db.all<Record<string, string | number | null>>(page);
  const total = db.get<{ total: number }>(count);
  return { rows, total: Number(total?.total ?? 0) };
}
