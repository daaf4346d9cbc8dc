// Bench-only: POST /admin/bench/months/{companyId}/{month} loads a slice of a large made-up month
// (bench/bench-month-rows.ts) straight into the month object, for the monthly formats' and the
// archive's benchmarks. Refused (403) unless the worker runs with BENCH_SEED=1 (`wrangler dev
// --var BENCH_SEED:1`); never declared in the OpenAPI document. Admin-authenticated like /admin/*.
import { requireAdmin } from "../auth/admin.ts";
import { benchPurchase, benchReceipt } from "../bench/bench-month-rows.ts";
import { ApiProblem } from "../http/problem.ts";
import { newRouter } from "../http/router.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import type { NewPurchase, NewReceipt } from "../ledger/rows.ts";

/** Rows per import call: a row is about 1.5 KB, far under the RPC limit. */
const IMPORT_BATCH = 500;
const MAX_SLICE = 50_000;

interface SeedBody {
  issuerRnc: string;
  /** Which rows: [from, from + count) of each kind. */
  purchases?: { from: number; count: number };
  sales?: { from: number; count: number };
  own?: { from: number; count: number; tipo: "41" | "43" };
  /** R2 documents for the sales' XML keys (archive bench), each this many bytes. */
  xmlBytes?: number;
}

export const benchSeedRoutes = newRouter();

benchSeedRoutes.post("/admin/bench/months/:companyId/:month", requireAdmin, async (c) => {
  if ((c.env as { BENCH_SEED?: string }).BENCH_SEED !== "1")
    throw new ApiProblem("forbidden", { detail: "Bench seeding is off (BENCH_SEED is not 1)." });
  const { companyId, month } = c.req.param();
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new ApiProblem("not_found", { detail: "month is yyyy-MM." });
  const body = (await c.req.json()) as SeedBody;
  const slices = [body.purchases, body.sales, body.own];
  if (slices.some((s) => s && (s.count > MAX_SLICE || s.from < 0)))
    throw new ApiProblem("validation_failed", { detail: `At most ${MAX_SLICE} rows per kind and call.` });
  await issuerLedger(c.env, companyId).noteMonth(month);
  const stub = receiptMonth(c.env, companyId, month);
  const range = (s: { from: number; count: number } | undefined) =>
    s ? Array.from({ length: s.count }, (_, k) => s.from + k) : [];
  const purchases = range(body.purchases).map((i) => benchPurchase(companyId, month, i));
  const receipts = [
    ...range(body.sales).map((i) => benchReceipt(companyId, body.issuerRnc, month, i)),
    ...range(body.own).map((i) => benchReceipt(companyId, body.issuerRnc, month, i, body.own!.tipo)),
  ];
  await importInBatches(stub, purchases, receipts);
  if (body.xmlBytes) await putDocuments(c.env.ARCHIVE, receipts, body.xmlBytes);
  return c.json({ purchases: purchases.length, receipts: receipts.length });
});

async function importInBatches(
  stub: ReturnType<typeof receiptMonth>,
  purchases: NewPurchase[],
  receipts: NewReceipt[],
): Promise<void> {
  for (let i = 0; i < purchases.length; i += IMPORT_BATCH)
    await stub.importRows({ receipts: [], purchases: purchases.slice(i, i + IMPORT_BATCH), audit: [] });
  for (let i = 0; i < receipts.length; i += IMPORT_BATCH)
    await stub.importRows({ receipts: receipts.slice(i, i + IMPORT_BATCH), purchases: [], audit: [] });
}

/** A made-up XML of `bytes` bytes under each receipt's key, 16 puts at a time. */
async function putDocuments(bucket: R2Bucket, receipts: NewReceipt[], bytes: number): Promise<void> {
  for (let i = 0; i < receipts.length; i += 16) {
    await Promise.all(
      receipts.slice(i, i + 16).map((r) => {
        const head = `<ECF><eNCF>${r.encf}</eNCF><Relleno>`;
        const tail = "</Relleno></ECF>";
        return bucket.put(r.xmlKey, head + "x".repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
      }),
    );
  }
}
