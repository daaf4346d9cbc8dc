// The 606's first pass as SQL inside the month object (ledger/month/month-purchases-head.ts): on a month
// of more than two pages of purchases and own E41/E43/E47, with every case the page-by-page pass
// told apart (commercially rejected, not confirmed by DGII, overridden; figures absent, not JSON or
// of another layout; each classification field given, left to the supplier's defaults set or
// learned, with percentages that round, to the document, or missing; own documents pending, final
// or not accepted, their counterparty from the figures, the row or the issuer), the header, what
// is missing, the totals and the exclusions are exactly what that pass (purchaseRecord606 and
// ownRecord606 over every page, kept here as the reference) gave.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { beforeAll, describe, expect, it } from "vitest";
import { benchPurchase, benchReceipt } from "../src/bench/bench-month-rows.ts";
import { issuerLedger, receiptMonth, type MonthStub } from "../src/ledger/client.ts";
import * as monthTables from "../src/ledger/month/month-tables.ts";
import type { NewPurchase, NewReceipt } from "../src/ledger/rows.ts";
import type { SupplierDefault } from "../src/ledger/issuer/supplier-defaults.ts";
import {
  ownCounterparty,
  ownRecord606,
  OWN_PURCHASE_TYPES,
  purchaseRecord606,
  summary606,
  totals606,
  type Excluded606,
} from "../src/reports/dgii-606.ts";
import { figuresPendingItem, type MissingItem } from "../src/reports/dgii-txt.ts";
import { readFigures, type DocumentFigures } from "../src/ledger/month/document-figures.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issuer } from "./support/issuing.ts";

const MONTH = "2025-03";
const PURCHASES = 1_300;
const OWN = 300;
const DGII = ["confirmed", "conditional", "pending", "not_found_at_dgii", "rejected"] as const;
const STATUSES = ["signed", "in_process", "contingency", "rejected", "voided"] as const;

/** Figures row i stores: absent, not JSON, another layout, or the bench's varied. */
function storedFigures(base: string, i: number, vary: (f: DocumentFigures) => void): string | null {
  const figures = JSON.parse(base) as DocumentFigures;
  vary(figures);
  if (i % 37 === 0) return null;
  if (i % 41 === 0) return "{not json";
  if (i % 43 === 0) return JSON.stringify({ ...figures, v: 2 });
  return JSON.stringify(figures);
}

/** Document-side variations: negative amounts, declared withholdings, forms of payment. */
function varyDocument(f: DocumentFigures, i: number) {
  if (i % 13 === 0) f.montoFacturado = `-${f.montoFacturado}`;
  if (i % 29 === 0) f.itbisFacturado = `-${f.itbisFacturado}`;
  if (i % 7 === 0) f.itbisRetenido = "12.34";
  if (i % 11 === 0) f.retencionRenta = i % 22 === 0 ? "0.00" : "3.10";
  if (i % 6 === 1) f.formasPago = [];
  if (i % 9 === 2)
    f.formasPago = [
      { formaPago: "1", montoPago: "1.00" },
      { formaPago: "2", montoPago: "1.00" },
    ];
  if (i % 9 === 4) f.formasPago = [{ formaPago: String(1 + (i % 8)), montoPago: "1.00" }];
  if (i % 17 === 3) f.tipoPago = null;
  if (i % 19 === 5) f.tipoPago = "2";
}

/** Purchase i: the bench's, its classification and confirmation varied over every rule. */
function purchase(companyId: string, i: number): NewPurchase {
  const base = benchPurchase(companyId, MONTH, i);
  const pick = <T>(options: T[], by: number) => options[Math.floor(i / by) % options.length]!;
  return {
    ...base,
    figures: storedFigures(base.figures!, i, (f) => varyDocument(f, i)),
    approvalStatus: i % 31 === 0 ? "rejected" : i % 3 === 0 ? "accepted" : null,
    dgiiStatus: i % 4 === 0 ? pick([...DGII], 4) : "confirmed",
    dgiiOverrideReason: i % 8 === 4 ? "Confirmed by phone with the supplier." : null,
    dgiiNextCheckAt: null,
    tipoBienesServicios: pick(["02", "09", null, null, "", "03"], 1),
    formaPago: pick(["01", null, null, "04"], 2),
    fechaPago: pick([null, "2025-03-20", null, ""], 3),
    tipoRetencionIsr: pick([null, "02", null, "01"], 5),
    itbisRetenido: pick([null, "0.00", null, "5.50", null], 2),
    montoRetencionRenta: pick([null, null, "0.00", "7.25"], 3),
    itbisAlCosto: pick([null, "1.00", null, "999999.99", "0.00", null], 1),
  };
}

/** Own E41/E43/E47 i: statuses pending, final and not accepted; counterparties of every source. */
function own(companyId: string, rnc: string, i: number): NewReceipt {
  const tipo = OWN_PURCHASE_TYPES[i % OWN_PURCHASE_TYPES.length]!;
  const base = benchReceipt(companyId, rnc, MONTH, i, tipo);
  return {
    ...base,
    status: STATUSES[i % 13] ?? (i % 2 ? "accepted" : "conditional"),
    rncComprador: i % 10 === 1 ? null : base.rncComprador,
    figures: storedFigures(base.figures!, i, (f) => {
      varyDocument(f, i);
      if (i % 5 === 0) f.rncComprador = null;
      if (i % 23 === 0) f.montoBienes = "0.00";
      if (i % 7 === 3) f.retencionRenta = "4.00";
    }),
  };
}

let company: { id: string; rnc: string };
let token: string;
let stub: MonthStub;

beforeAll(async () => {
  ({ company, token } = await issuer());
  const ledger = issuerLedger(env, company.id);
  await ledger.index().noteMonth(MONTH);
  stub = receiptMonth(env, company.id, MONTH);
  const purchases = Array.from({ length: PURCHASES }, (_, i) => purchase(company.id, i));
  const owns = Array.from({ length: OWN }, (_, i) => own(company.id, company.rnc, i));
  await runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage, { schema: monthTables });
    for (const row of purchases) db.insert(monthTables.purchases).values(row).run();
    for (const row of owns) db.insert(monthTables.receipts).values(row).run();
  });
  // Defaults set by the issuer and learned, with rates that round half-up, for some counterparties
  // (suppliers and own counterparties, the issuer itself among them); none for the others.
  const rates = [null, "30", "100", "2.5", "10.75", "0", "33.33"];
  const counterparties = [...new Set([...purchases.map((p) => p.rncEmisor), ...owns.map((r) => r.rncComprador)])];
  const all = [...counterparties.filter((r): r is string => !!r), company.rnc];
  for (const [k, rnc] of all.entries()) {
    if (k % 4 === 3) continue;
    const values = {
      tipoBienesServicios: k % 5 === 0 ? null : ["02", "09", "01"][k % 3]!,
      formaPago: k % 3 === 0 ? null : ["02", "03"][k % 2]!,
      tipoRetencionIsr: k % 7 === 0 ? null : "02",
      itbisRetenidoPorcentaje: rates[k % rates.length]!,
      retencionRentaPorcentaje: rates[(k + 2) % rates.length]!,
      itbisAlCostoPorcentaje: rates[(k + 4) % rates.length]!,
    };
    if (k % 2 === 0) await ledger.catalogue().setSupplierDefault(rnc, values);
    else await ledger.catalogue().learnSupplierDefault(rnc, values);
  }
}, 180_000);

async function defaultsOf(rncs: string[]): Promise<Map<string, SupplierDefault>> {
  const found = rncs.length
    ? await issuerLedger(env, company.id)
        .catalogue()
        .supplierDefaults([...new Set(rncs)])
    : [];
  return new Map(found.map((d) => [d.rncEmisor, d]));
}

/** The first pass as it was: every purchase, then every own document, a page at a time. */
async function pageByPage() {
  const totals = totals606();
  const missing: MissingItem[] = [];
  const excluded: Excluded606[] = [];
  let count = 0;
  let unread = 0;
  let pages = 0;
  const read = <T extends { figures: string | null }>(rows: T[]) => {
    const out: [T, DocumentFigures][] = [];
    for (const row of rows) {
      const figures = readFigures(row.figures);
      if (figures) out.push([row, figures]);
      else unread++;
    }
    return out;
  };
  for (let after: string | undefined; ; pages++) {
    const rows = await stub.reports().purchasesPage({ after });
    if (!rows.length) break;
    after = rows[rows.length - 1]!.id;
    const withFigures = read(rows);
    const defaults = await defaultsOf(withFigures.map(([p]) => p.rncEmisor));
    for (const [p, figures] of withFigures) {
      const record = purchaseRecord606(p, figures, defaults);
      if ("excluded" in record) excluded.push(record.excluded);
      else {
        count++;
        totals.add(record.line.fields);
        missing.push(...record.missing);
      }
    }
  }
  for (let after: string | undefined; ; ) {
    const rows = await stub.reports().receiptsPage({ after, tipos: [...OWN_PURCHASE_TYPES] });
    if (!rows.length) break;
    after = rows[rows.length - 1]!.encf;
    const withFigures = read(rows);
    const defaults = await defaultsOf(withFigures.map(([r, f]) => ownCounterparty(r, f, company.rnc)));
    for (const [receipt, figures] of withFigures) {
      const record = ownRecord606(receipt, figures, company.rnc, defaults);
      if (record.line) {
        count++;
        totals.add(record.line.fields);
      }
      missing.push(...record.missing);
    }
  }
  if (unread > 0) missing.push(figuresPendingItem(unread));
  return { count, missing, totals: totals.result(), excluded, pages };
}

describe("the 606's first pass in SQL", () => {
  it("gives the page-by-page pass's count, missing items (in order), totals and exclusions", async () => {
    const reference = await pageByPage();
    // The month exercises what it should: more than two pages, every kind of missing item, exclusions.
    expect(reference.pages).toBeGreaterThan(2);
    expect(reference.count).toBeGreaterThan(500);
    const codes = new Set(reference.missing.map((m) => m.code));
    expect(codes).toEqual(
      new Set([
        "unclassified",
        "payment_date_missing",
        "retention_type_missing",
        "itbis_al_costo_exceeds",
        "pending_dgii",
        "figures_pending",
      ]),
    );
    expect(new Set(reference.excluded.map((e) => e.reason)).size).toBeGreaterThan(3);
    for (const total of Object.values(reference.totals)) expect(total).not.toBe("0.00");

    const summary = summary606(await stub.reports().purchasesHead(company.id, [...OWN_PURCHASE_TYPES], company.rnc));
    expect(summary.count).toBe(reference.count);
    expect(summary.totals).toEqual(reference.totals);
    expect(summary.missing).toEqual(reference.missing);
    expect(summary.excluded).toEqual(reference.excluded);
  }, 180_000);

  it("the 606's JSON says what the reference says; its TXT is refused with every missing item", async () => {
    const reference = await pageByPage();
    const json = await call("/reports/606?period=202503", { headers: authed(token) });
    expect(json.status).toBe(200);
    const report = (await json.json()) as Record<string, unknown> & { lines: unknown[] };
    expect(report.recordCount).toBe(reference.count);
    expect(report.lines).toHaveLength(reference.count);
    expect(report.missing).toEqual(reference.missing);
    expect(report.totals).toEqual(reference.totals);
    expect(report.excluded).toEqual(reference.excluded);
    const txt = await call("/reports/606?period=202503&format=txt", { headers: authed(token) });
    expect(txt.status).toBe(422);
    expect(((await txt.json()) as { errors: unknown[] }).errors).toHaveLength(reference.missing.length);
  }, 180_000);
});
