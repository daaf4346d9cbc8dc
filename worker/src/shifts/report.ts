// GET /reports/turnos: the issuer's shifts per day and till, with their Z report's totals. Read as
// the other reports are (reports/reports.ts): every month object in the date range answers its
// slice after the keyset cursor, in parallel, and the worker merges them and cuts the page.
import { eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { devices } from "../db/devices-tables.ts";
import { ApiProblem, type ProblemItem } from "../errors/problem.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { encodeCursor, readCursor, readDateRange, readFormat, readPageSize } from "../reports/paging.ts";
import type { ZReport } from "./shift-schema.ts";
import { shiftSortKey, type Shift } from "../ledger/month/shift-rows.ts";

/** The cursor's report name: a cursor of another report is refused. */
const REPORT = "turnos";
const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The report's columns, in CSV order (JSON items carry the same names). */
export const SHIFT_REPORT_COLUMNS = [
  "businessDay",
  "deviceId",
  "deviceName",
  "shiftId",
  "cashierId",
  "cashierName",
  "state",
  "openedAt",
  "closedAt",
  "openingFloat",
  "salesCount",
  "salesTotal",
  "itbisTotal",
  "refundCount",
  "refundsTotal",
  "cash",
  "card",
  "transfer",
  "cashSales",
  "cashRefunds",
  "expectedCash",
  "countedCash",
  "difference",
] as const;
export type ShiftReportRow = Record<(typeof SHIFT_REPORT_COLUMNS)[number], string | number | null>;

export interface ShiftReportQuery {
  desde?: string;
  hasta?: string;
  deviceId?: string;
  pageSize: number;
  after?: [string, string];
  format: "json" | "csv";
}

export interface ShiftReportPage {
  items: ShiftReportRow[];
  total: number;
  pageSize: number;
  nextCursor: string | null;
}

/** Dates, deviceId, pageSize, cursor and format; every problem points into the query. */
export function readShiftReportQuery(
  query: Record<string, string | undefined>,
  accept: string | undefined,
): ShiftReportQuery {
  const errors: ProblemItem[] = [];
  const { desde, hasta } = readDateRange(query, errors);
  const { deviceId } = query;
  if (deviceId !== undefined && !DEVICE_ID.test(deviceId))
    errors.push({
      path: "/query/deviceId",
      code: "invalid_value",
      message: "deviceId must be a device id (GET /devices).",
    });
  const pageSize = readPageSize(query, errors);
  const after = readCursor(REPORT, query.cursor, errors);
  const format = readFormat(query, accept, errors);
  if (errors.length) throw new ApiProblem("validation_failed", { detail: "The report query is not valid.", errors });
  return { desde, hasta, deviceId, pageSize, after: after as [string, string] | undefined, format };
}

export async function readShiftReport(env: Env, companyId: string, query: ShiftReportQuery): Promise<ShiftReportPage> {
  // A shift lives in the month of its day, so the dates' own months bound the objects to ask.
  const [months, names] = await Promise.all([
    issuerLedger(env, companyId).index().months(query.desde?.slice(0, 7), query.hasta?.slice(0, 7)),
    database(env.DB)
      .select({ id: devices.id, name: devices.name })
      .from(devices)
      .where(eq(devices.companyId, companyId)),
  ]);
  const slice = {
    from: query.desde,
    until: query.hasta,
    deviceId: query.deviceId,
    after: query.after,
    limit: query.pageSize + 1,
  };
  const slices = await Promise.all(
    months.map((month) => receiptMonth(env, companyId, month).reports().shiftSlice(slice)),
  );
  const key = (s: Shift) => `${shiftSortKey(s)}|${s.id}`;
  // One row more than the page tells whether there is a next page.
  const rows = slices.flatMap((s) => s.rows).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const page = rows.slice(0, query.pageSize);
  const last = page[page.length - 1];
  const deviceName = new Map(names.map((d) => [d.id, d.name]));
  return {
    items: page.map((s) => reportRow(s, deviceName.get(s.deviceId) ?? null)),
    total: slices.reduce((n, s) => n + s.total, 0),
    pageSize: query.pageSize,
    nextCursor: rows.length > query.pageSize && last ? encodeCursor(REPORT, [shiftSortKey(last), last.id]) : null,
  };
}

function reportRow(s: Shift, deviceName: string | null): ShiftReportRow {
  const report = s.report ? (JSON.parse(s.report) as ZReport) : null;
  const paid = (method: string) => report?.payments.find((p) => p.method === method)?.total ?? (report ? "0.00" : null);
  return {
    businessDay: s.businessDay,
    deviceId: s.deviceId,
    deviceName,
    shiftId: s.id,
    cashierId: s.cashierId,
    cashierName: s.cashierName,
    state: s.closedAt ? "closed" : "open",
    openedAt: s.openedAt,
    closedAt: s.closedAt,
    openingFloat: s.openingFloat,
    salesCount: report?.salesCount ?? null,
    salesTotal: s.salesTotal,
    itbisTotal: s.itbisTotal,
    refundCount: report?.refunds.count ?? null,
    refundsTotal: s.refundsTotal,
    cash: paid("efectivo"),
    card: paid("tarjeta"),
    transfer: paid("transferencia"),
    cashSales: report?.cashSales ?? null,
    cashRefunds: report?.cashRefunds ?? null,
    expectedCash: s.expectedCash,
    countedCash: s.countedCash,
    difference: s.cashDifference,
  };
}
