// PUT /devices/shifts/{id}: a till hands over a shift it opened or closed. The shift lives in the
// ReceiptMonth object of the Santo Domingo month it was opened in, so the reports find it by day.
// The till retries until it hears an answer: the same upload again changes nothing, and a closed
// shift is final (what the printed Z report says is what the server keeps).
import { add, dec, drIsoDate, eq as same, formatMoney, sub } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import type { Device } from "../devices/auth.ts";
import { ApiProblem, type ProblemItem } from "../errors/problem.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import type { ShiftBody, ShiftView, ZReport } from "./shift-schema.ts";
import type { NewShift, Shift } from "../ledger/month/shift-rows.ts";

/** A till's clock may run ahead a little; a shift opened further in the future than this is a mistake. */
const CLOCK_SKEW_MS = 24 * 3_600_000;

export interface UploadedShift {
  status: 200 | 201;
  shift: ShiftView;
}

export async function uploadShift(
  env: Env,
  company: Company,
  device: Device,
  id: string,
  body: ShiftBody,
  now = new Date(),
): Promise<UploadedShift> {
  const errors = inconsistencies(body, now);
  // A revoked till may still hand over what happened before its revocation (as its receipts), nothing after.
  if (device.revokedAt && body.openedAt >= device.revokedAt)
    errors.push({
      path: "/openedAt",
      code: "after_revocation",
      message: `The device was revoked at ${device.revokedAt}, before this shift was opened.`,
    });
  if (errors.length) throw new ApiProblem("validation_failed", { detail: "The shift is not consistent.", errors });

  const opened = new Date(body.openedAt);
  const businessDay = drIsoDate(opened);
  const report = body.report;
  const row: NewShift = {
    id,
    companyId: company.id,
    deviceId: device.id,
    cashierId: body.cashierId,
    cashierName: body.cashierName,
    businessDay,
    openedAt: opened.toISOString(),
    closedAt: body.closedAt ? new Date(body.closedAt).toISOString() : null,
    openingFloat: body.openingFloat,
    countedCash: body.countedCash ?? null,
    expectedCash: report?.expectedCash ?? null,
    cashDifference: report?.difference ?? null,
    salesTotal: report?.salesTotal ?? null,
    itbisTotal: report?.itbisTotal ?? null,
    refundsTotal: report?.refunds.total ?? null,
    receiptCount: report ? report.receipts.reduce((n, r) => n + r.count, 0) : null,
    report: report ? JSON.stringify(report) : null,
    payload: canonicalPayload(body),
  };
  const month = businessDay.slice(0, 7);
  const [, outcome] = await Promise.all([
    issuerLedger(env, company.id).index().noteMonth(month),
    receiptMonth(env, company.id, month).reports().putShift(row),
  ]);
  if (outcome.kind === "conflict") {
    throw new ApiProblem("conflict", {
      detail: outcome.message,
      errors: [
        { path: outcome.path, code: outcome.shift.closedAt ? "shift_closed" : "shift_fixed", message: outcome.message },
      ],
    });
  }
  return { status: outcome.kind === "created" ? 201 : 200, shift: shiftView(outcome.shift) };
}

/** The upload as stored for comparison: keys in one order, instants as the server writes them. */
function canonicalPayload(body: ShiftBody): string {
  return JSON.stringify({
    cashierId: body.cashierId,
    cashierName: body.cashierName,
    openedAt: new Date(body.openedAt).toISOString(),
    openingFloat: body.openingFloat,
    closedAt: body.closedAt ? new Date(body.closedAt).toISOString() : null,
    countedCash: body.countedCash ?? null,
    report: body.report ?? null,
  });
}

/**
 * What the schema cannot say: closing takes the time, the count and the Z report together, and
 * the report's cash lines must add up (expected = float + cash sales − cash refunds, difference =
 * counted − expected), so a report that contradicts itself is never kept as final.
 */
function inconsistencies(body: ShiftBody, now: Date): ProblemItem[] {
  const errors: ProblemItem[] = [];
  if (Date.parse(body.openedAt) > now.getTime() + CLOCK_SKEW_MS)
    errors.push({
      path: "/openedAt",
      code: "in_future",
      message: "openedAt is more than a day ahead of the server's clock.",
    });
  const closing = { closedAt: body.closedAt, countedCash: body.countedCash, report: body.report };
  const given = Object.entries(closing).filter(([, v]) => v !== undefined);
  if (given.length > 0 && given.length < 3) {
    for (const [name, value] of Object.entries(closing))
      if (value === undefined)
        errors.push({
          path: `/${name}`,
          code: "required",
          message: "closedAt, countedCash and report close a shift together.",
        });
    return errors;
  }
  if (body.closedAt && Date.parse(body.closedAt) < Date.parse(body.openedAt))
    errors.push({ path: "/closedAt", code: "before_opening", message: "closedAt is before openedAt." });
  if (body.report && body.countedCash)
    errors.push(...reportArithmetic(body.report, body.openingFloat, body.countedCash));
  return errors;
}

function reportArithmetic(report: ZReport, openingFloat: string, countedCash: string): ProblemItem[] {
  const errors: ProblemItem[] = [];
  const expected = sub(add(dec(openingFloat), dec(report.cashSales)), dec(report.cashRefunds));
  const mismatch = (path: string, given: string, wanted: string, rule: string) =>
    errors.push({ path, code: "inconsistent", message: `${rule}: ${wanted}, not ${given}.` });
  if (!same(dec(report.countedCash), dec(countedCash)))
    mismatch("/report/countedCash", report.countedCash, countedCash, "The report's count is countedCash");
  if (!same(dec(report.expectedCash), expected))
    mismatch(
      "/report/expectedCash",
      report.expectedCash,
      formatMoney(expected),
      "openingFloat + cashSales − cashRefunds",
    );
  const difference = sub(dec(countedCash), expected);
  if (!same(dec(report.difference), difference))
    mismatch("/report/difference", report.difference, formatMoney(difference), "countedCash − expectedCash");
  return errors;
}

export function shiftView(s: Shift): ShiftView {
  return {
    id: s.id,
    deviceId: s.deviceId,
    cashierId: s.cashierId,
    cashierName: s.cashierName,
    state: s.closedAt ? "closed" : "open",
    businessDay: s.businessDay,
    openedAt: s.openedAt,
    closedAt: s.closedAt,
    openingFloat: s.openingFloat,
    countedCash: s.countedCash,
    expectedCash: s.expectedCash,
    difference: s.cashDifference,
    report: s.report ? (JSON.parse(s.report) as ZReport) : null,
  };
}
