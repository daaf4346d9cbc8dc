// A month's 606, 607 and 608 from its month object (plus the issuer object for supplier defaults
// and voided ranges), as files written while read (monthly-file.ts): a first pass counts the
// records and gathers what is missing and the totals, keeping no record (SQL inside the month
// object: ledger/month/month-purchases-head.ts, month-sales-head.ts); the records are then paged in the
// file's order (ledger/month/format-order.ts). Figures of rows recorded before 1.8.0 are read from the
// archive first.
import { drDayStartUtc } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { requestedMonth } from "./requested-month.ts";
import { refuse } from "../errors/refusal.ts";
import { issuerLedger, receiptMonth, type MonthStub } from "../ledger/client.ts";
import { formatPosition, type FormatAfter } from "../ledger/month/format-order.ts";
import type { SalesHead } from "../ledger/month/month-sales-head.ts";
import { TOTALLED_606, type PurchasesHead } from "../ledger/month/purchases-head-shape.ts";
import type { PagedReceipt } from "../ledger/month/monthly-rows.ts";
import type { Purchase } from "../ledger/rows.ts";
import type { SupplierDefault } from "../ledger/issuer/supplier-defaults.ts";
import {
  head606,
  key606,
  OWN_PURCHASE_TYPES,
  ownCounterparty,
  ownRecord606,
  purchaseRecord606,
  summary606,
  type Line606,
} from "./dgii-606.ts";
import { consumerSummary, head607, record607, SALES_TYPES, summary607, type Line607 } from "./dgii-607.ts";
import { build608, countVoidedNumbers, MAX_VOIDED_NUMBERS, type Line608 } from "./dgii-608.ts";
import { monthOfPeriodo } from "./dgii-txt.ts";
import { readFigures, type DocumentFigures } from "../ledger/month/document-figures.ts";
import { backfillFigures } from "../ledger/figures-backfill.ts";
import { fileOfReport, type MonthlyFile } from "./monthly-file.ts";

/** AAAAMM → yyyy-MM, or a 400 pointing at the query parameter it was given as. */
export function monthOf(period: string | undefined): string {
  const month = period === undefined ? undefined : monthOfPeriodo(period);
  if (!month) {
    throw refuse("invalid", {
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

/** A month object's rows a page at a time, each page after the last row of the one before. */
async function* pagesOf<T, After>(
  page: (after: After | undefined) => Promise<T[]>,
  positionOf: (row: T) => After,
): AsyncGenerator<T[]> {
  let after: After | undefined;
  for (;;) {
    const rows = await page(after);
    if (!rows.length) return;
    yield rows;
    after = positionOf(rows[rows.length - 1]!);
  }
}

/** Rows paired with their figures; rows still without them are counted, not guessed. */
function withFigures<T extends { figures: string | null }>(
  rows: T[],
): { rows: [T, DocumentFigures][]; unread: number } {
  const out: [T, DocumentFigures][] = [];
  let unread = 0;
  for (const row of rows) {
    const parsed = readFigures(row.figures);
    if (parsed) out.push([row, parsed]);
    else unread++;
  }
  return { rows: out, unread };
}

/** The month object, when the issuer has one for that month (asking an absent one would create it). */
async function monthObject(env: Env, companyId: string, month: string): Promise<MonthStub | null> {
  const known = await issuerLedger(env, companyId).index().months(month, month);
  if (!known.length) return null;
  const stub = receiptMonth(env, companyId, month);
  await backfillFigures(env, stub);
  return stub;
}

type Defaults = ReadonlyMap<string, SupplierDefault>;

/** The defaults of the suppliers (and own counterparties) of one page. */
async function defaultsOf(env: Env, companyId: string, rncs: Iterable<string>): Promise<Defaults> {
  const wanted = [...new Set(rncs)];
  const found = wanted.length ? await issuerLedger(env, companyId).catalogue().supplierDefaults(wanted) : [];
  return new Map(found.map((d) => [d.rncEmisor, d]));
}

/** A page of own E41/E43/E47 with figures, and the defaults of their counterparties. */
async function ownPage(env: Env, company: Company, rows: PagedReceipt[]) {
  const read = withFigures(rows);
  const defaults = await defaultsOf(
    env,
    company.id,
    read.rows.map(([r, f]) => ownCounterparty(r, f, company.rnc)),
  );
  return { ...read, defaults };
}

/** A page of purchases with figures, and their suppliers' defaults. */
async function purchasePage(env: Env, company: Company, rows: Purchase[]) {
  const read = withFigures(rows);
  return {
    ...read,
    defaults: await defaultsOf(
      env,
      company.id,
      read.rows.map(([p]) => p.rncEmisor),
    ),
  };
}

/** The 606's records in its order: purchases and own documents, each paged by key, merged. */
async function* lines606(env: Env, company: Company, stub: MonthStub): AsyncGenerator<Line606> {
  const bought = pagesOf(
    (formatAfter: FormatAfter | undefined) => stub.reports().purchasesPage({ formatOrder: "606", formatAfter }),
    formatPosition.purchase,
  );
  const own = pagesOf(
    (formatAfter: FormatAfter | undefined) =>
      stub
        .reports()
        .receiptsPage({ formatOrder: "606", formatAfter, tipos: [...OWN_PURCHASE_TYPES], issuerRnc: company.rnc }),
    (r): FormatAfter => [r.formatKey!],
  );
  async function* purchaseLines() {
    for await (const rows of bought) {
      const page = await purchasePage(env, company, rows);
      for (const [purchase, figures] of page.rows) {
        const record = purchaseRecord606(purchase, figures, page.defaults);
        if ("line" in record) yield record.line;
      }
    }
  }
  async function* ownLines() {
    for await (const rows of own) {
      const page = await ownPage(env, company, rows);
      for (const [receipt, figures] of page.rows) {
        const { line } = ownRecord606(receipt, figures, company.rnc, page.defaults);
        if (line) yield line;
      }
    }
  }
  // On equal keys the purchases come first, as the stable sort over [...purchases, ...own] put them.
  yield* mergeByKey(purchaseLines(), ownLines(), key606);
}

/** Two sequences each in key order, as one in key order (the first's item first on a tie). */
async function* mergeByKey<T>(a: AsyncIterator<T>, b: AsyncIterator<T>, key: (item: T) => string): AsyncGenerator<T> {
  let [x, y] = await Promise.all([a.next(), b.next()]);
  while (!x.done || !y.done) {
    if (y.done || (!x.done && key(x.value) <= key(y.value))) {
      yield x.value as T;
      x = await a.next();
    } else {
      yield y.value;
      y = await b.next();
    }
  }
}

export async function open606(env: Env, company: Company, periodo: string): Promise<MonthlyFile<Line606>> {
  const stub = await monthObject(env, company.id, monthOf(periodo));
  // The first pass is SQL inside the month object (which asks the issuer object for the defaults once).
  const summary = summary606(
    stub ? await stub.reports().purchasesHead(company.id, [...OWN_PURCHASE_TYPES], company.rnc) : NO_PURCHASES,
  );
  return {
    head: head606(company.rnc, periodo, summary.count, summary.missing),
    lines: () => (stub ? lines606(env, company, stub) : noLines()),
    tail: { totals: summary.totals, excluded: summary.excluded },
  };
}

async function* noLines<T>(): AsyncGenerator<T> {}

const NO_PURCHASES: PurchasesHead = {
  count: 0,
  unread: 0,
  cents: Object.fromEntries(TOTALLED_606.map((c) => [c, "0"])) as PurchasesHead["cents"],
  excluded: [],
  incomplete: [],
  own: [],
};

const NO_SALES: SalesHead = {
  count: 0,
  cents: { montoFacturado: "0", itbisFacturado: "0" },
  missing: [],
  unread: 0,
  rfce: {
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
  },
};

const SALES = { tipos: [...SALES_TYPES], withoutAcceptedRfce: true };

/** The 607's records in its order (FechaComprobante, e-NCF), a page at a time. */
async function* lines607(stub: MonthStub): AsyncGenerator<Line607> {
  const pages = pagesOf(
    (formatAfter: FormatAfter | undefined) =>
      stub.reports().receiptsPage({ ...SALES, formatOrder: "607", formatAfter }),
    formatPosition.sale,
  );
  for await (const rows of pages) {
    for (const [receipt, figures] of withFigures(rows).rows) {
      const { line } = record607(receipt, figures);
      if (line) yield line;
    }
  }
}

export async function open607(env: Env, company: Company, periodo: string): Promise<MonthlyFile<Line607>> {
  const stub = await monthObject(env, company.id, monthOf(periodo));
  // The first pass is SQL inside the month object: one call, whatever the month's size.
  const summary = summary607(stub ? await stub.reports().salesHead([...SALES_TYPES]) : NO_SALES);
  return {
    head: head607(company.rnc, periodo, summary.count, summary.missing),
    lines: () => (stub ? lines607(stub) : noLines()),
    tail: { totals: summary.totals, consumptionSummary: consumerSummary(summary.rfce) },
  };
}

/** The first instant of a month in Santo Domingo, as UTC ISO. */
function monthStartUtc(month: string, plusMonths = 0): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const first = new Date(Date.UTC(y, m - 1 + plusMonths, 1)).toISOString().slice(0, 10);
  return drDayStartUtc(first);
}

export async function open608(env: Env, company: Company, periodo: string): Promise<MonthlyFile<Line608>> {
  const month = monthOf(periodo);
  const ledger = issuerLedger(env, company.id);
  const ranges = await ledger.voiding().voidedRangesBetween(monthStartUtc(month), monthStartUtc(month, 1));
  const numbers = countVoidedNumbers(ranges);
  if (numbers > MAX_VOIDED_NUMBERS) {
    throw refuse("not_allowed", {
      detail: `${numbers} e-NCF were voided in ${periodo}: more than a 608 is built for here (${MAX_VOIDED_NUMBERS}; DGII's tool takes 4,999 per file).`,
      errors: [{ path: "/query/period", code: "too_many_records", message: `${numbers} voided e-NCF.` }],
    });
  }
  // Voided receipts live in the month objects of their FechaEmision, which the ranges name.
  const found = await Promise.all(
    ranges.flatMap((r) =>
      r.months.map((m) =>
        receiptMonth(env, company.id, m).reports().voidedReceipts(r.tipoeCF, r.firstNumber, r.lastNumber),
      ),
    ),
  );
  const report = build608({
    rnc: company.rnc,
    periodo,
    ranges,
    receipts: new Map(found.flat().map((r) => [r.encf, r.issueDate])),
  });
  return fileOfReport(report);
}
