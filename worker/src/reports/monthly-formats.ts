// Gathers a month's rows for the 606, 607 and 608 (one month object, plus the issuer object for
// supplier defaults and voided ranges) and hands them to the pure builders. Rows are read a page
// at a time; figures of rows recorded before 1.8.0 are read from the archive first.
import { drDayStartUtc } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { requestedMonth } from "../http/month.ts";
import { ApiProblem } from "../http/problem.ts";
import { issuerLedger, receiptMonth, type MonthStub } from "../ledger/client.ts";
import type { MonthPageQuery, RfceSums } from "../ledger/monthly-rows.ts";
import type { Purchase, Receipt } from "../ledger/rows.ts";
import { build606, OWN_PURCHASE_TYPES, ownCounterparty, type Report606 } from "./dgii-606.ts";
import { build607, SALES_TYPES, type Report607 } from "./dgii-607.ts";
import { build608, countVoidedNumbers, MAX_VOIDED_NUMBERS, type Report608 } from "./dgii-608.ts";
import { monthOfPeriodo } from "./dgii-txt.ts";
import { readFigures, type DocumentFigures } from "./document-figures.ts";
import { backfillFigures } from "./figures-backfill.ts";

/** AAAAMM → yyyy-MM, or a 400 pointing at the query parameter it was given as. */
export function monthOf(period: string | undefined): string {
  const month = period === undefined ? undefined : monthOfPeriodo(period);
  if (!month) {
    throw new ApiProblem("validation_failed", {
      detail: "period must be a month, AAAAMM.",
      errors: [{ path: "/query/period", code: "invalid_period", message: "Expected AAAAMM, e.g. 202605." }],
    });
  }
  return month;
}

/** The month `?period=` asks for (AAAAMM or AAAA-MM, begun already), as DGII's AAAAMM. */
export function periodOfQuery(query: { period?: string }, now: Date): string {
  return requestedMonth(query.period, "/query/period", now).replace("-", "");
}

/** Every page of a month object's rows, in order. */
async function allRows<T>(
  page: (query: MonthPageQuery) => Promise<T[]>,
  keyOf: (row: T) => string,
  query: Omit<MonthPageQuery, "after"> = {},
): Promise<T[]> {
  const rows: T[] = [];
  let after: string | undefined;
  for (;;) {
    const next = await page({ ...query, after });
    rows.push(...next);
    if (!next.length) return rows;
    after = keyOf(next[next.length - 1]!);
  }
}

/** Rows paired with their figures; rows still without them are counted, not guessed. */
function withFigures<T extends { figures: string | null }>(
  rows: T[],
): { rows: (T & { parsed: DocumentFigures })[]; unread: number } {
  const out: (T & { parsed: DocumentFigures })[] = [];
  let unread = 0;
  for (const row of rows) {
    const parsed = readFigures(row.figures);
    if (parsed) out.push({ ...row, parsed });
    else unread++;
  }
  return { rows: out, unread };
}

/** The month object, when the issuer has one for that month (asking an absent one would create it). */
async function monthObject(env: Env, companyId: string, month: string): Promise<MonthStub | null> {
  const known = await issuerLedger(env, companyId).months(month, month);
  if (!known.length) return null;
  const stub = receiptMonth(env, companyId, month);
  await backfillFigures(env, stub);
  return stub;
}

export async function read606(env: Env, company: Company, periodo: string): Promise<Report606> {
  const month = monthOf(periodo);
  const stub = await monthObject(env, company.id, month);
  const purchases = stub
    ? withFigures(
        await allRows(
          (q) => stub.purchasesPage(q),
          (p: Purchase) => p.id,
        ),
      )
    : { rows: [], unread: 0 };
  const own = stub
    ? withFigures(
        await allRows(
          (q) => stub.receiptsPage(q),
          (r: Receipt) => r.encf,
          { tipos: [...OWN_PURCHASE_TYPES] },
        ),
      )
    : { rows: [], unread: 0 };
  const rncs = new Set([
    ...purchases.rows.map((p) => p.rncEmisor),
    ...own.rows.map((r) => ownCounterparty(r, r.parsed, company.rnc)),
  ]);
  const defaults = rncs.size ? await issuerLedger(env, company.id).supplierDefaults([...rncs]) : [];
  return build606({
    rnc: company.rnc,
    periodo,
    purchases: purchases.rows.map(({ parsed, ...purchase }) => ({ purchase, figures: parsed })),
    own: own.rows.map(({ parsed, ...receipt }) => ({ receipt, figures: parsed })),
    defaults: new Map(defaults.map((d) => [d.rncEmisor, d])),
    figuresPending: purchases.unread + own.unread,
  });
}

const NO_RFCE: RfceSums = {
  count: 0,
  withoutFigures: 0,
  cents: {
    montoFacturado: "0",
    itbisFacturado: "0",
    isc: "0",
    otrosImpuestos: "0",
    propinaLegal: "0",
    montoTotal: "0",
  },
  byFormaPago: [],
  byTipoPago: [],
};

export async function read607(env: Env, company: Company, periodo: string): Promise<Report607> {
  const month = monthOf(periodo);
  const stub = await monthObject(env, company.id, month);
  const receipts = stub
    ? withFigures(
        await allRows(
          (q) => stub.receiptsPage(q),
          (r: Receipt) => r.encf,
          { tipos: [...SALES_TYPES], withoutAcceptedRfce: true },
        ),
      )
    : { rows: [], unread: 0 };
  const rfce = stub ? await stub.rfceSums() : NO_RFCE;
  return build607({
    rnc: company.rnc,
    periodo,
    receipts: receipts.rows.map(({ parsed, ...receipt }) => ({ receipt, figures: parsed })),
    rfce,
    figuresPending: receipts.unread + rfce.withoutFigures,
  });
}

/** The first instant of a month in Santo Domingo, as UTC ISO. */
function monthStartUtc(month: string, plusMonths = 0): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const first = new Date(Date.UTC(y, m - 1 + plusMonths, 1)).toISOString().slice(0, 10);
  return drDayStartUtc(first);
}

export async function read608(env: Env, company: Company, periodo: string): Promise<Report608> {
  const month = monthOf(periodo);
  const ledger = issuerLedger(env, company.id);
  const ranges = await ledger.voidedRangesBetween(monthStartUtc(month), monthStartUtc(month, 1));
  const numbers = countVoidedNumbers(ranges);
  if (numbers > MAX_VOIDED_NUMBERS) {
    throw new ApiProblem("unprocessable", {
      detail: `${numbers} e-NCF were voided in ${periodo}: more than a 608 is built for here (${MAX_VOIDED_NUMBERS}; DGII's tool takes 4,999 per file).`,
      errors: [{ path: "/query/period", code: "too_many_records", message: `${numbers} voided e-NCF.` }],
    });
  }
  // Voided receipts live in the month objects of their FechaEmision, which the ranges name.
  const found = await Promise.all(
    ranges.flatMap((r) =>
      r.months.map((m) => receiptMonth(env, company.id, m).voidedReceipts(r.tipoeCF, r.firstNumber, r.lastNumber)),
    ),
  );
  return build608({
    rnc: company.rnc,
    periodo,
    ranges,
    receipts: new Map(found.flat().map((r) => [r.encf, r.issueDate])),
  });
}
