// Keyset paging for reports: rows come in a fixed total order (a sort key plus a unique tie-break),
// and the cursor is the last key seen, so pages never repeat or skip rows even while new rows
// arrive. The cursor is opaque to clients (base64url JSON) and bound to its report.
import type { ProblemItem } from "../errors/problem.ts";
import { refuse } from "../errors/refusal.ts";
import {
  ESTADO_SQL,
  REPORT_FILTERS,
  REPORT_SPECS,
  type ReportFilter,
  type ReportName,
} from "../ledger/month/report-specs.ts";

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface ReportQuery {
  desde?: string;
  hasta?: string;
  pageSize: number;
  /** The last (sort key, tie-break) of the previous page. */
  after?: [string, string | number];
  format: "json" | "csv";
  filters: Partial<Record<ReportFilter, string>>;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DGII_DATE = /^(\d{2})-(\d{2})-(\d{4})$/;

/** A date as ISO (yyyy-MM-dd) or as DGII writes it (dd-MM-yyyy), to ISO; anything else as given. */
const isoDateOf = (value: string) => value.replace(DGII_DATE, "$3-$2-$1");

function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const t = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().startsWith(value);
}

const toBase64Url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

export function encodeCursor(report: string, key: [string, string | number]): string {
  return toBase64Url(JSON.stringify({ r: report, k: key }));
}

function decodeCursor(report: string, cursor: string): [string, string | number] | undefined {
  const json = fromBase64Url(cursor);
  if (json === undefined) return undefined;
  try {
    const value = JSON.parse(json) as { r?: unknown; k?: unknown };
    const k = value.k;
    if (
      value.r !== report ||
      !Array.isArray(k) ||
      k.length !== 2 ||
      typeof k[0] !== "string" ||
      (typeof k[1] !== "string" && typeof k[1] !== "number")
    )
      return undefined;
    return [k[0], k[1]];
  } catch {
    return undefined;
  }
}

/**
 * Reads and validates the dates (`Desde`/`Hasta`, yyyy-MM-dd or dd-MM-yyyy), the report's filters, pageSize, cursor and format; every problem
 * points into the query.
 */
export function readReportQuery(
  report: ReportName,
  query: Record<string, string | undefined>,
  accept: string | undefined,
): ReportQuery {
  const errors: ProblemItem[] = [];
  const { desde, hasta } = readDateRange(query, errors);
  const filters: Partial<Record<ReportFilter, string>> = {};
  for (const name of REPORT_FILTERS) {
    const value = query[name];
    if (value === undefined) continue;
    const spec = REPORT_SPECS[report].filters[name];
    if (!spec)
      errors.push({
        path: `/query/${name}`,
        code: "unknown_filter",
        message: `The ${report} report has no ${name} filter.`,
      });
    else if (spec.kind === "estado" ? !Object.hasOwn(ESTADO_SQL, value) : !spec.pattern.test(value)) {
      errors.push({ path: `/query/${name}`, code: "invalid_value", message: `${name} must be ${spec.hint}.` });
    } else filters[name] = value;
  }
  const pageSize = readPageSize(query, errors);
  const after = readCursor(report, query.cursor, errors);
  const format = readFormat(query, accept, errors);
  if (errors.length) throw refuse("invalid", { detail: "The report query is not valid.", errors });
  return { desde, hasta, pageSize, after, format, filters };
}

/** Desde/Hasta (the interface's names, DGII's services') as ISO dates, from yyyy-MM-dd or dd-MM-yyyy; problems go to `errors`. */
export function readDateRange(
  query: Record<string, string | undefined>,
  errors: ProblemItem[],
): { desde?: string; hasta?: string } {
  const dates: { desde?: string; hasta?: string } = {};
  for (const [name, param] of [
    ["desde", "Desde"],
    ["hasta", "Hasta"],
  ] as const) {
    const given = query[param];
    if (given === undefined) continue;
    const iso = isoDateOf(given);
    if (isCalendarDate(iso)) dates[name] = iso;
    else
      errors.push({
        path: `/query/${param}`,
        code: "invalid_date",
        message: `${param} must be a calendar date, yyyy-MM-dd or dd-MM-yyyy.`,
      });
  }
  const { desde, hasta } = dates;
  if (desde && hasta && desde > hasta) {
    errors.push({ path: "/query/Hasta", code: "range_inverted", message: "Hasta must not be before Desde." });
  }
  return dates;
}

export function readPageSize(query: Record<string, string | undefined>, errors: ProblemItem[]): number {
  if (query.pageSize === undefined) return DEFAULT_PAGE_SIZE;
  const pageSize = /^\d{1,7}$/.test(query.pageSize) ? Number(query.pageSize) : NaN;
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE)) {
    errors.push({
      path: "/query/pageSize",
      code: "out_of_range",
      message: `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}.`,
    });
  }
  return pageSize;
}

/** The previous page's last key, from a cursor this report returned. */
export function readCursor(
  report: string,
  cursor: string | undefined,
  errors: ProblemItem[],
): [string, string | number] | undefined {
  if (cursor === undefined) return undefined;
  const after = decodeCursor(report, cursor);
  if (!after)
    errors.push({ path: "/query/cursor", code: "invalid_cursor", message: "cursor is not one this report returned." });
  return after;
}

/** json or csv (a code: any case), `format`, else the Accept header. */
export function readFormat(
  query: Record<string, string | undefined>,
  accept: string | undefined,
  errors: ProblemItem[],
): "json" | "csv" {
  const format = query.format?.toLowerCase() ?? (/text\/csv/i.test(accept ?? "") ? "csv" : "json");
  if (format !== "json" && format !== "csv")
    errors.push({ path: "/query/format", code: "invalid", message: "format must be json or csv." });
  return format as "json" | "csv";
}
