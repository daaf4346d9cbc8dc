// /reports/encf at a supermarket chain's scale (issue 35): every page of a month object's slice is
// a range of one index in report order, never a scan of the receipts table nor a sort, so the
// last page costs what the first does; the total comes from the per-day counts, kept by triggers.
// And the bench-only bulk path (bench/month-scale.bench.ts) is closed unless BENCH_BULK is "1".
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { benchMonthRows, benchReceiptKey } from "../src/bench/month-rows.ts";
import type { BenchRowsSpec } from "../src/ledger/month/month-import.ts";
import { receiptMonth } from "../src/ledger/client.ts";
import { reportSliceSql } from "../src/ledger/month/report-slice.ts";
import type { ReceiptMonth } from "../src/objects/receipt-month.ts";
import type { ReportSliceQuery } from "../src/ledger/month/report-specs.ts";
import { companyWithToken } from "./support/accounts.ts";
import { call } from "./support/http.ts";

const MONTH = "2026-10";
const N = 3_000;

/** A month object holding the first N receipts of the bench's month (its generator, the ordinary import). */
async function loadedMonth() {
  const { company } = await companyWithToken();
  const stub = receiptMonth(env, company.id, MONTH);
  const spec: BenchRowsSpec = {
    companyId: company.id,
    rnc: company.registryNumber,
    month: MONTH,
    kind: "receipts",
    from: 0,
    count: N,
    total: N,
  };
  await runInDurableObject(stub, (instance: ReceiptMonth) => instance.maintenance().importRows(benchMonthRows(spec)));
  return stub;
}

interface PlanRow {
  detail: string;
}

/** The query plan of a slice's page and count, and the rows and total it answers. */
function planned(stub: DurableObjectStub, query: ReportSliceQuery) {
  return runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage);
    const { page, count } = reportSliceSql("encf", query);
    return {
      pagePlan: db.all<PlanRow>(sql`EXPLAIN QUERY PLAN ${page}`).map((r) => r.detail),
      countPlan: db.all<PlanRow>(sql`EXPLAIN QUERY PLAN ${count}`).map((r) => r.detail),
      rows: db.all<{ encf: string; fechaEmision: string; tipoeCF: string; rncComprador: string | null }>(page),
      total: db.get<{ total: number }>(count)!.total,
      counted: db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM receipts`)!.n,
    };
  });
}

/** Every step that reads receipts goes through `index`, and nothing is sorted afterwards. */
function expectIndexOnly(plan: string[], index: string) {
  const onReceipts = plan.filter((step) => /\breceipts\b/.test(step));
  expect(onReceipts.length).toBeGreaterThan(0);
  for (const step of onReceipts)
    expect(step).toMatch(new RegExp(`^(SEARCH|SCAN) receipts USING (COVERING )?INDEX ${index}\\b`));
  expect(plan.join("\n")).not.toMatch(/TEMP B-TREE|^SCAN receipts$/m);
}

describe("/reports/encf's slice at scale: index ranges in report order, keyset cursor", () => {
  it("first page, a cursor page, the buyer filter and the type filter each read one index; totals from the counts", async () => {
    const stub = await loadedMonth();
    const keys = Array.from({ length: N }, (_, i) => benchReceiptKey({ month: MONTH, total: N }, i)).sort((a, b) =>
      a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : 1,
    );
    const limit = 50;

    const first = await planned(stub, { limit });
    expectIndexOnly(first.pagePlan, "receipts_date");
    expect(first.rows.map((r) => r.encf)).toEqual(keys.slice(0, limit).map((k) => k[1]));
    expect(first.countPlan.join("\n")).not.toMatch(/\breceipts\b/); // the per-day counts, not the rows
    expect(first.total).toBe(N);

    // A cursor deep in the month: a range of the same index from the cursor on (no OFFSET, no scan from the start).
    const at = 2_000;
    const cursorPage = await planned(stub, {
      limit,
      after: keys[at]!,
      from: `${MONTH}-01`,
      until: `${MONTH}-31\uffff`,
    });
    expectIndexOnly(cursorPage.pagePlan, "receipts_date");
    expect(cursorPage.pagePlan.join("\n")).toMatch(
      /SEARCH receipts USING INDEX receipts_date \(\(issue_date,encf\)>\(\?,\?\)/,
    );
    expect(cursorPage.rows.map((r) => r.encf)).toEqual(keys.slice(at + 1, at + 1 + limit).map((k) => k[1]));
    expect(cursorPage.total).toBe(N);

    // A cursor from before `Desde` (the client changed the dates): the page starts at Desde.
    const fromLater = await planned(stub, { limit, after: keys[0]!, from: keys[at]![0] });
    expect(fromLater.rows[0]!.fechaEmision).toBe(keys[at]![0]);
    expectIndexOnly(fromLater.pagePlan, "receipts_date");

    const e31Page = await planned(stub, { limit, filters: { tipoeCF: "31" } });
    const buyer = e31Page.rows[0]!.rncComprador!;
    const byBuyer = await planned(stub, { limit, filters: { rncComprador: buyer } });
    expectIndexOnly(byBuyer.pagePlan, "receipts_buyer_date");
    expectIndexOnly(byBuyer.countPlan, "receipts_buyer_date");
    expect(byBuyer.rows.length).toBeGreaterThan(0);
    expect(byBuyer.rows.every((r) => r.rncComprador === buyer)).toBe(true);

    const byType = await planned(stub, { limit, filters: { tipoeCF: "31" }, after: keys[at]! });
    expectIndexOnly(byType.pagePlan, "receipts_type_date");
    expect(byType.countPlan.join("\n")).not.toMatch(/\breceipts\b/);
    expect(byType.rows.map((r) => r.encf)).toEqual(
      keys
        .slice(at + 1)
        .filter((k) => k[1].startsWith("E31"))
        .slice(0, limit)
        .map((k) => k[1]),
    );
    const e31 = keys.filter((k) => k[1].startsWith("E31")).length;
    expect(e31Page.total).toBe(e31);
  });

  it("the per-day counts follow the receipts table (insert, a date change, delete)", async () => {
    const stub = await loadedMonth();
    const sums = () =>
      runInDurableObject(stub, (_instance, state) =>
        [...state.storage.sql.exec("SELECT issue_date, tipo_ecf, receipts FROM receipt_day_counts ORDER BY 1, 2")].map(
          (r) => `${r.issue_date}/${r.tipo_ecf}=${r.receipts}`,
        ),
      );
    const actual = () =>
      runInDurableObject(stub, (_instance, state) =>
        [
          ...state.storage.sql.exec(
            "SELECT issue_date, tipo_ecf, COUNT(*) AS receipts FROM receipts GROUP BY 1, 2 ORDER BY 1, 2",
          ),
        ].map((r) => `${r.issue_date}/${r.tipo_ecf}=${r.receipts}`),
      );
    expect(await sums()).toEqual(await actual());
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE receipts SET issue_date = '2026-10-30' WHERE encf = 'E310000000001'");
      state.storage.sql.exec("DELETE FROM receipts WHERE encf = 'E320000000002'");
    });
    const after = (await sums()).filter((s) => !s.endsWith("=0"));
    expect(after).toEqual(await actual());
  });
});

describe("the bench-only bulk path is closed by default", () => {
  it("POST /admin/bench/month-rows is not found, and the month object refuses the call", async () => {
    const { company } = await companyWithToken();
    const spec = {
      companyId: company.id,
      rnc: company.registryNumber,
      month: MONTH,
      kind: "receipts",
      from: 0,
      count: 10,
      total: 10,
    } as const;
    const res = await call("/admin/bench/month-rows", {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-secret", "Content-Type": "application/json" },
      body: JSON.stringify(spec),
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).toBe("not_found");
    const stub = receiptMonth(env, company.id, MONTH);
    await runInDurableObject(stub, (instance: ReceiptMonth) => {
      expect(() => instance.maintenance().benchLoad(spec)).toThrow(/BENCH_BULK/);
    });
    const rows = await runInDurableObject(stub, (_i, state) => [...state.storage.sql.exec("SELECT 1 FROM receipts")]);
    expect(rows).toHaveLength(0);
  });
});
