// Bench-only: POST /admin/bench/month-rows loads a chunk of one issuer's synthetic month
// (bench/month-rows.ts) into its month object, for bench/month-scale.bench.ts. It exists only
// where BENCH_BULK is "1" (the bench's own `wrangler dev --var BENCH_BULK:1`): anywhere else it
// answers exactly what an unknown route does, and the object refuses the call as well. Behind
// the admin secret like every /admin/* route; not in the OpenAPI document (not part of the API).
import { z } from "@hono/zod-openapi";
import { benchBulkEnabled } from "../bench/month-rows.ts";
import { notFound, zodProblems } from "../http/errors.ts";
import { ApiProblem, malformedJson } from "../http/problem.ts";
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
  await issuerLedger(c.env, spec.companyId).noteMonth(spec.month);
  return c.json(await receiptMonth(c.env, spec.companyId, spec.month).benchLoad(spec));
});
