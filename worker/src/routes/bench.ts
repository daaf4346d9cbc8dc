// Bench-only: POST /admin/bench/month-rows loads a chunk of one issuer's synthetic month
// (bench/month-rows.ts) into its month object, for bench/month-scale.bench.ts; POST
// /admin/bench/months/{companyId}/{month} loads a slice of purchases, sales and own E41/E43 with
// their R2 documents (bench/bench-month-rows.ts), for bench/monthly-files.bench.ts; POST
// /admin/bench/issuer-ceiling drives numbering (and recording) against one fresh issuer's objects
// from inside the worker (bench/issuer-ceiling.ts), for bench/issuer-ceiling.bench.ts. It exists only
// where BENCH_BULK is "1" (the bench's own `wrangler dev --var BENCH_BULK:1`): anywhere else it
// answers exactly what an unknown route does, and the object refuses the call as well. Behind
// the admin secret like every /admin/* route; not in the OpenAPI document (not part of the API).
import { z } from "@hono/zod-openapi";
import { requireAdmin } from "../auth/admin.ts";
import { benchPurchase, benchReceipt } from "../bench/bench-month-rows.ts";
import type { NewPurchase, NewReceipt } from "../ledger/rows.ts";
import { CEILING_MODES, measureIssuerCeiling } from "../bench/issuer-ceiling.ts";
import { benchBulkEnabled } from "../bench/month-rows.ts";
import { notFound, zodProblems } from "../http/errors.ts";
import { ApiProblem, malformedJson } from "../errors/problem.ts";
import { newRouter } from "../http/router.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";

const BenchRowsBody = z.object({
  companyId: z.string().min(1),
  rnc: z.string().regex(/^\d{9}$|^\d{11}$/),
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/),
  kind: z.enum(["receipts", "purchases"]),
  from: z.number().int().min(0),
  count: z.number().int().min(0).max(50_000),
  total: z.number().int().min(1),
});

/** Rows per import call: a row is about 1.5 KB, far under the RPC limit. */
const IMPORT_BATCH = 500;
const MAX_SLICE = 50_000;

export const benchRoutes = newRouter();

benchRoutes.post("/admin/bench/month-rows", async (c) => {
  if (!benchBulkEnabled(c.env)) return notFound(c);
  const body = await c.req.json().catch(() => {
    throw malformedJson();
  });
  const parsed = BenchRowsBody.safeParse(body);
  if (!parsed.success)
    throw new ApiProblem("validation_failed", {
      detail: "Not a bench rows request.",
      errors: zodProblems(parsed.error, "/body"),
    });
  const spec = parsed.data;
  await issuerLedger(c.env, spec.companyId).index().noteMonth(spec.month);
  return c.json(await receiptMonth(c.env, spec.companyId, spec.month).maintenance().benchLoad(spec));
});

const CeilingBody = z.object({
  mode: z.enum(CEILING_MODES),
  count: z.number().int().min(1).max(10_000),
  callers: z.number().int().min(1).max(200),
});

benchRoutes.post("/admin/bench/issuer-ceiling", requireAdmin, async (c) => {
  if (!benchBulkEnabled(c.env)) return notFound(c);
  const body = await c.req.json().catch(() => {
    throw malformedJson();
  });
  const parsed = CeilingBody.safeParse(body);
  if (!parsed.success)
    throw new ApiProblem("validation_failed", {
      detail: "Not an issuer ceiling request.",
      errors: zodProblems(parsed.error, "/body"),
    });
  return c.json(await measureIssuerCeiling(c.env, parsed.data));
});

interface SeedBody {
  issuerRnc: string;
  /** Which rows: [from, from + count) of each kind. */
  purchases?: { from: number; count: number };
  sales?: { from: number; count: number };
  own?: { from: number; count: number; tipo: "41" | "43" };
  /** R2 documents for the sales' XML keys (archive bench), each this many bytes. */
  xmlBytes?: number;
}

benchRoutes.post("/admin/bench/months/:companyId/:month", requireAdmin, async (c) => {
  if (!benchBulkEnabled(c.env)) return notFound(c);
  const { companyId, month } = c.req.param();
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new ApiProblem("not_found", { detail: "month is yyyy-MM." });
  const body = (await c.req.json()) as SeedBody;
  const slices = [body.purchases, body.sales, body.own];
  if (slices.some((s) => s && (s.count > MAX_SLICE || s.from < 0)))
    throw new ApiProblem("validation_failed", { detail: `At most ${MAX_SLICE} rows per kind and call.` });
  await issuerLedger(c.env, companyId).index().noteMonth(month);
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
    await stub.maintenance().importRows({ receipts: [], purchases: purchases.slice(i, i + IMPORT_BATCH), audit: [] });
  for (let i = 0; i < receipts.length; i += IMPORT_BATCH)
    await stub.maintenance().importRows({ receipts: receipts.slice(i, i + IMPORT_BATCH), purchases: [], audit: [] });
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

/** The most a heap control may hold: enough to read 40 MB, far under the isolate's 128 MB. */
const MAX_HELD_MB = 64;

/**
 * Bench-only: the heap probe's control (bench/monthly-files.bench.ts). Holds `mb` MiB of distinct
 * strings on the JS heap for as long as its response is being read (a MiB per chunk, pulled as the
 * client reads), and lets go of them at its end: a probe that reads less during it is broken.
 */
benchRoutes.get("/admin/bench/heap-hold", requireAdmin, (c) => {
  if (!benchBulkEnabled(c.env)) return notFound(c);
  const mb = Math.min(Math.max(Number(c.req.query("mb")) || 0, 1), MAX_HELD_MB);
  // Decoded from bytes, so each is a flat MiB of one-byte characters (padEnd or repeat would build a
  // rope of shared pieces, far smaller than its length).
  const decoder = new TextDecoder();
  let held: string[] | null = Array.from({ length: mb }, (_, i) =>
    decoder.decode(new Uint8Array(1024 * 1024).fill(48 + (i % 10)).fill(65 + (i % 26), 0, 1)),
  );
  let sent = 0;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!held || sent === held.length) {
        held = null;
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(held[sent++]));
    },
  });
  return c.newResponse(body, 200, { "Content-Type": "text/plain" });
});
