// The 607's first pass as SQL aggregates inside the month object (ledger/month/month-sales-head.ts):
// on a month larger than a page, with every case the page-by-page pass told apart (pending and
// final statuses, E32 sent as RFCE, a type the 607 does not list, figures absent, not JSON or of
// another layout, negative amounts, withholdings recorded by the issuer or declared by the
// document, zero or not, with and without their date), the header, what is missing and the
// totals are exactly what that pass (record607 over every page, kept here as the reference) gave.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { beforeAll, describe, expect, it } from "vitest";
import { benchReceipt } from "../src/bench/bench-month-rows.ts";
import { issuerLedger, receiptMonth, type MonthStub } from "../src/ledger/client.ts";
import * as monthTables from "../src/ledger/month/month-tables.ts";
import { rfceSums } from "../src/ledger/month/monthly-rows.ts";
import type { NewReceipt } from "../src/ledger/rows.ts";
import { record607, SALES_TYPES, summary607, totals607 } from "../src/reports/dgii-607.ts";
import { figuresPendingItem, type MissingItem } from "../src/reports/dgii-txt.ts";
import { readFigures } from "../src/ledger/month/document-figures.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issuer } from "./support/issuing.ts";

const MONTH = "2025-03";
const N = 1_300;
const TIPOS = ["31", "32", "33", "34", "44", "45", "46", "41"];
const STATUSES = ["signed", "in_process", "contingency", "rejected", "conditional", "voided"] as const;

/** Row i: the bench's receipt, varied so that each rule of record607 meets rows on both of its sides. */
function row(companyId: string, rnc: string, i: number): NewReceipt {
  const tipo = TIPOS[i % TIPOS.length]!;
  const base = benchReceipt(companyId, rnc, MONTH, i, tipo);
  const figures = JSON.parse(base.figures!) as Record<string, unknown>;
  if (i % 13 === 0) figures.montoFacturado = `-${figures.montoFacturado}`;
  if (i % 7 === 0) figures.itbisRetenido = "12.34";
  if (i % 17 === 0) figures.retencionRenta = "0.00";
  if (i % 19 === 0) figures.retencionRenta = "3.10";
  const rfce = tipo === "32" && i % 3 === 0;
  // (Text that is not JSON only on rows the E32 sums leave out: rfceSums, unchanged, reads the others.)
  const stored =
    i % 37 === 0
      ? null
      : i % 41 === 0 && !rfce
        ? "{not json"
        : i % 43 === 0
          ? JSON.stringify({ ...figures, v: 2 })
          : JSON.stringify(figures);
  return {
    ...base,
    status: STATUSES[i % 11] ?? "accepted",
    dgiiPath: rfce ? "rfce" : "ecf",
    figures: stored,
    itbisRetenidoTerceros: i % 9 === 0 ? "0.00" : i % 23 === 0 ? "7.00" : null,
    retencionRentaTerceros: i % 10 === 0 ? "5.00" : null,
    fechaRetencion: i % 4 === 0 ? "2025-03-20" : i % 5 === 0 ? "" : null,
  };
}

let company: { id: string; rnc: string };
let token: string;
let stub: MonthStub;

beforeAll(async () => {
  ({ company, token } = await issuer());
  await issuerLedger(env, company.id).index().noteMonth(MONTH);
  stub = receiptMonth(env, company.id, MONTH);
  // Written straight into the object's tables, never due: the alarm must not move a pending row on.
  await runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage, { schema: monthTables });
    for (let i = 0; i < N; i++)
      db.insert(monthTables.receipts)
        .values(row(company.id, company.rnc, i))
        .run();
  });
}, 120_000);

/** The first pass as it was: every sale a page at a time through record607, in e-NCF order. */
async function pageByPage() {
  const totals = totals607();
  const missing: MissingItem[] = [];
  let count = 0;
  let unread = 0;
  let after: string | undefined;
  for (;;) {
    const rows = await stub.reports().receiptsPage({ tipos: [...SALES_TYPES], withoutAcceptedRfce: true, after });
    if (!rows.length) break;
    after = rows[rows.length - 1]!.encf;
    for (const receipt of rows) {
      const figures = readFigures(receipt.figures);
      if (!figures) {
        unread++;
        continue;
      }
      const record = record607(receipt, figures);
      if (record.line) {
        count++;
        totals.add(record.line.fields);
      }
      missing.push(...record.missing);
    }
  }
  const rfce = await runInDurableObject(stub, (_instance, state) =>
    rfceSums(drizzle(state.storage, { schema: monthTables })),
  );
  if (unread + rfce.withoutFigures > 0) missing.push(figuresPendingItem(unread + rfce.withoutFigures));
  return { count, missing, totals: totals.result(), rfce };
}

describe("the 607's first pass in SQL", () => {
  it("gives the page-by-page pass's count, missing items (in order) and totals on a month larger than a page", async () => {
    const reference = await pageByPage();
    // The month exercises what it should: more than a page of records, both kinds of missing item.
    expect(reference.count).toBeGreaterThan(500);
    const codes = new Set(reference.missing.map((m) => m.code));
    expect(codes).toEqual(new Set(["pending_dgii", "retention_date_missing", "figures_pending"]));
    expect(reference.rfce.count).toBeGreaterThan(0);

    const summary = summary607(await stub.reports().salesHead([...SALES_TYPES]));
    expect(summary.count).toBe(reference.count);
    expect(summary.totals).toEqual(reference.totals);
    expect(summary.missing).toEqual(reference.missing);
    expect(summary.rfce).toEqual(reference.rfce);
  }, 120_000);

  it("the 607's JSON says what the reference says; its TXT is refused with every missing item", async () => {
    const reference = await pageByPage();
    const json = await call("/reports/607?period=202503", { headers: authed(token) });
    expect(json.status).toBe(200);
    const report = (await json.json()) as Record<string, unknown> & { lines: unknown[] };
    expect(report.recordCount).toBe(reference.count);
    expect(report.lines).toHaveLength(reference.count);
    expect(report.missing).toEqual(reference.missing);
    expect(report.complete).toBe(false);
    expect(report.totals).toEqual(reference.totals);
    // An incomplete month is not given as a file to upload: its problem lists the same missing items.
    const txt = await call("/reports/607?period=202503&format=txt", { headers: authed(token) });
    expect(txt.status).toBe(422);
    const problem = (await txt.json()) as { errors: unknown[] };
    expect(problem.errors).toHaveLength(reference.missing.length);
  }, 120_000);
});
