// The 606 and 607 of months larger than one page of the month object (500 rows) and one chunk of
// the response (64 Ki characters), written while read (reports/monthly-file.ts): the JSON is
// exactly JSON.stringify of the object it parses to, every record comes once in the file's order
// across pages (606: purchases and own E41/E43 merged, RNCs of 9 and 11 digits), the TXT's header
// counts its records and its lines are the JSON's fields. Also: the bench seeding route is refused
// unless the worker runs with BENCH_BULK=1.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { benchPurchase, benchReceipt } from "../src/bench/bench-month-rows.ts";
import { issuerLedger, receiptMonth } from "../src/ledger/client.ts";
import { COLUMNS_606 } from "../src/reports/dgii-606.ts";
import { COLUMNS_607 } from "../src/reports/dgii-607.ts";
import { authed } from "./support/accounts.ts";
import { call } from "./support/http.ts";
import { issuer } from "./support/issuing.ts";

const MONTH = "2025-03";
const PURCHASES = 1_230;
const SALES = 1_130;
const OWN = 40;

let company: { id: string; rnc: string };
let token: string;

beforeAll(async () => {
  ({ company, token } = await issuer());
  await issuerLedger(env, company.id).index().noteMonth(MONTH);
  const stub = receiptMonth(env, company.id, MONTH);
  const purchases = Array.from({ length: PURCHASES }, (_, i) => benchPurchase(company.id, MONTH, i));
  const receipts = [
    ...Array.from({ length: SALES }, (_, i) => benchReceipt(company.id, company.rnc, MONTH, i)),
    ...Array.from({ length: OWN }, (_, i) => benchReceipt(company.id, company.rnc, MONTH, i, i % 2 ? "41" : "43")),
  ];
  for (let i = 0; i < purchases.length; i += 500)
    await stub.maintenance().importRows({ receipts: [], purchases: purchases.slice(i, i + 500), audit: [] });
  for (let i = 0; i < receipts.length; i += 500)
    await stub.maintenance().importRows({ receipts: receipts.slice(i, i + 500), purchases: [], audit: [] });
}, 120_000);

interface Line {
  encf: string;
  fields: Record<string, string>;
}
interface FormatJson {
  recordCount: number;
  complete: boolean;
  lines: Line[];
  totals: Record<string, string>;
  excluded?: unknown[];
}

/** Exact cents of a DGII amount ("1234.50"), never through a float. */
const cents = (amount: string) => (amount ? BigInt(amount.replace(".", "")) : 0n);
const money = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, "0")}`;

async function both(formato: "606" | "607") {
  const json = await call(`/reports/${formato}?period=202503`, { headers: authed(token) });
  expect(json.status).toBe(200);
  expect(json.headers.get("Content-Type")).toBe("application/json");
  const text = await json.text();
  const txt = await call(`/reports/${formato}?period=202503&format=txt`, { headers: authed(token) });
  expect(txt.status).toBe(200);
  return {
    text,
    report: JSON.parse(text) as FormatJson,
    txt: await txt.text(),
    count: txt.headers.get("X-Record-Count"),
  };
}

function expectFileOrder(lines: Line[], key: (l: Line) => string) {
  for (let i = 1; i < lines.length; i++) expect(key(lines[i - 1]!) < key(lines[i]!), `line ${i}`).toBe(true);
}

function expectTxt(txt: string, formato: string, report: FormatJson, columns: readonly string[]) {
  const rows = txt.split("\r\n");
  expect(rows.pop()).toBe("");
  expect(rows[0]).toBe(`${formato}|${company.rnc}|202503|${report.recordCount}`);
  expect(rows.slice(1)).toEqual(report.lines.map((l) => columns.map((c) => l.fields[c]).join("|")));
  // More than one chunk of the response.
  expect(txt.length).toBeGreaterThan(64 * 1024);
}

describe("monthly formats larger than a page", () => {
  it("606: every counted purchase and own document once, in the file's order across pages; JSON as JSON.stringify writes it; TXT = JSON", async () => {
    const { text, report, txt, count } = await both("606");
    expect(text).toBe(JSON.stringify(report));
    const rejected = Array.from({ length: PURCHASES }, (_, i) => i).filter((i) => i % 50 === 7);
    expect(report.excluded).toHaveLength(rejected.length);
    expect(report.recordCount).toBe(PURCHASES - rejected.length + OWN);
    expect(report.lines).toHaveLength(report.recordCount);
    expect(report.complete).toBe(true);
    expect(new Set(report.lines.map((l) => `${l.fields.rncCedula}${l.encf}`)).size).toBe(report.recordCount);
    expect(new Set(report.lines.map((l) => l.fields.rncCedula!.length))).toEqual(new Set([9, 11]));
    expectFileOrder(report.lines, (l) => `${l.fields.fechaComprobante}|${l.fields.rncCedula}|${l.fields.ncf}`);
    const sum = report.lines.reduce((s, l) => s + cents(l.fields.totalMontoFacturado!), 0n);
    expect(report.totals.totalMontoFacturado).toBe(money(sum));
    expect(count).toBe(String(report.recordCount));
    expectTxt(txt, "606", report, COLUMNS_606);
  }, 120_000);

  it("607: every sale once in (FechaComprobante, e-NCF) order across pages; JSON as JSON.stringify writes it; TXT = JSON", async () => {
    const { text, report, txt } = await both("607");
    expect(text).toBe(JSON.stringify(report));
    expect(report.recordCount).toBe(SALES);
    expect(report.lines.map((l) => l.encf).sort()).toEqual(
      Array.from({ length: SALES }, (_, i) => `E31${String(i + 1).padStart(10, "0")}`),
    );
    expectFileOrder(report.lines, (l) => `${l.fields.fechaComprobante}|${l.encf}`);
    const sum = report.lines.reduce((s, l) => s + cents(l.fields.itbisFacturado!), 0n);
    expect(report.totals.itbisFacturado).toBe(money(sum));
    expectTxt(txt, "607", report, COLUMNS_607);
  }, 120_000);

  it("the bench seeding route and the heap control are not found unless the worker runs with BENCH_BULK=1", async () => {
    const res = await call(`/admin/bench/months/${company.id}/${MONTH}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${env.ADMIN_SECRET}`, "Content-Type": "application/json" },
      body: JSON.stringify({ issuerRnc: company.rnc, sales: { from: 0, count: 1 } }),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toContain("application/problem+json");
    const unauthenticated = await call(`/admin/bench/months/${company.id}/${MONTH}`, { method: "POST", body: "{}" });
    expect(unauthenticated.status).toBe(401);
    // The heap probe's control (it holds memory on purpose) is no more there than the seeding route.
    const control = await call("/admin/bench/heap-hold?mb=1", {
      headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    });
    expect(control.status).toBe(404);
    expect(control.headers.get("Content-Type")).toContain("application/problem+json");
  });
});
