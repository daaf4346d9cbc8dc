// One month's slice of a report page (GET /reports/*): the rows after the cursor in the report's
// total order, and the count. The report's table, columns and filters come from reports/specs.ts,
// constants only: every value from the request is a bound parameter.
import { sql, type SQL } from "drizzle-orm";
import {
  ESTADO_SQL,
  REPORT_SPECS,
  type ReportFilter,
  type ReportName,
  type ReportSlice,
  type ReportSliceQuery,
} from "../reports/specs.ts";
import type { MonthDb } from "./month-receipts.ts";

export function reportSlice(db: MonthDb, name: ReportName, query: ReportSliceQuery): ReportSlice {
  const spec = REPORT_SPECS[name];
  const sort = sql.raw(spec.sortColumn);
  const tie = sql.raw(spec.tieColumn);
  const filter: SQL[] = [sql`1 = 1`];
  if (query.from !== undefined) filter.push(sql`${sort} >= ${query.from}`);
  if (query.until !== undefined) filter.push(sql`${sort} < ${query.until}`);
  for (const [name, value] of Object.entries(query.filters ?? {}) as [ReportFilter, string][]) {
    const by = spec.filters[name];
    if (!by || value === undefined) continue;
    if (by.kind === "estado") filter.push(sql.raw(Object.hasOwn(ESTADO_SQL, value) ? ESTADO_SQL[value]! : "0 = 1"));
    else if (by.kind === "equals") filter.push(sql`${sql.raw(by.column)} = ${value}`);
    else filter.push(sql`substr(${sql.raw(by.column)}, 1, ${value.length}) = ${value}`);
  }
  const page = [...filter];
  if (query.after)
    page.push(sql`(${sort} > ${query.after[0]} OR (${sort} = ${query.after[0]} AND ${tie} > ${query.after[1]}))`);
  const columns = sql.raw(
    Object.entries(spec.columns)
      .map(([out, column]) => `${column} AS "${out}"`)
      .join(", "),
  );
  const table = sql.raw(spec.table);
  const rows = db.all<Record<string, string | number | null>>(
    sql`SELECT ${columns} FROM ${table} WHERE ${sql.join(page, sql` AND `)} ORDER BY ${sort}, ${tie} LIMIT ${query.limit}`,
  );
  const count = db.get<{ total: number }>(
    sql`SELECT COUNT(*) AS total FROM ${table} WHERE ${sql.join(filter, sql` AND `)}`,
  );
  return { rows, total: Number(count?.total ?? 0) };
}
