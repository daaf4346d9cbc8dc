// The bench-only path that measures one issuer's ceiling at the IssuerLedger itself (issue 35,
// bench/issuer-ceiling.bench.ts): concurrent callers inside the worker number (and record) through
// the issuing path's RPCs, every e-NCF once and in order; and the route is not found unless the
// worker runs with BENCH_BULK=1, like the other bench routes.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { measureIssuerCeiling } from "../src/bench/issuer-ceiling.ts";
import { issuerLedger, receiptMonth } from "../src/ledger/client.ts";
import { call } from "./support/http.ts";

const ADMIN = { Authorization: "Bearer test-admin-secret", "Content-Type": "application/json" };

/** POST /admin/bench/issuer-ceiling to a worker whose BENCH_BULK is `bulk`. */
function ceiling(body: unknown, bulk: string | undefined) {
  return createApp().fetch(
    new Request("http://ecf.test/admin/bench/issuer-ceiling", {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify(body),
    }) as any,
    { ...env, BENCH_BULK: bulk } as Env,
    createExecutionContext(),
  );
}

describe("one issuer's ceiling, measured inside the worker", () => {
  it("numbers and records every operation once, 1..n in order, with concurrent callers", async () => {
    const run = await measureIssuerCeiling(env, { mode: "number+record", count: 40, callers: 7 });
    expect(run).toMatchObject({ count: 40, callers: 7, numbered: 40, distinct: 40, gapless: true });
    expect(run.perSecond).toBeGreaterThan(0);
    // The warm-up took E320000000001; the run's 40 follow it, each recorded in the month object.
    const month = receiptMonth(env, run.companyId, "2026-11");
    const recorded = await month
      .receipts()
      .receiptsByEncf(Array.from({ length: 41 }, (_, k) => `E32${String(k + 1).padStart(10, "0")}`));
    expect(recorded).toHaveLength(41);
    expect(new Set(recorded.map((r) => r.status))).toEqual(new Set(["contingency"]));
    expect((await issuerLedger(env, run.companyId).numbering().sequences())[0]!.nextNumber).toBe(42);
  });

  it("numbers without recording, and the no-op RPC reference numbers nothing", async () => {
    const numbered = await measureIssuerCeiling(env, { mode: "number", count: 25, callers: 5 });
    expect(numbered).toMatchObject({ numbered: 25, distinct: 25, gapless: true });
    expect(await receiptMonth(env, numbered.companyId, "2026-11").receipts().receiptsByEncf(["E320000000002"])).toEqual(
      [],
    );
    const rpc = await measureIssuerCeiling(env, { mode: "rpc", count: 25, callers: 5 });
    expect(rpc).toMatchObject({ numbered: 0, distinct: 0 });
    expect((await issuerLedger(env, rpc.companyId).numbering().sequences())[0]!.nextNumber).toBe(1);
  });

  it("the route answers the run with BENCH_BULK=1 and refuses a bad request as a problem", async () => {
    const res = await ceiling({ mode: "number", count: 5, callers: 2 }, "1");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ mode: "number", numbered: 5, distinct: 5, gapless: true });
    const bad = await ceiling({ mode: "fast", count: 0, callers: 2 }, "1");
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as { code: string; errors: { pointer?: string; path?: string }[] };
    expect(problem.code).toBe("validation_failed");
    expect(JSON.stringify(problem.errors)).toMatch(/\/body\/mode/);
  });

  it("is not found unless BENCH_BULK is 1, and needs the admin secret", async () => {
    const res = await ceiling({ mode: "rpc", count: 5, callers: 1 }, undefined);
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).toBe("not_found");
    const anonymous = await call("/admin/bench/issuer-ceiling", { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
  });
});
