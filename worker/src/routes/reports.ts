// GET /reports/{encf,compras,errores}: tenant-scoped, date-filtered, keyset-paged, JSON or CSV.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { toCsv } from "../reports/csv.ts";
import { MAX_PAGE_SIZE, readReportQuery } from "../reports/paging.ts";
import { readReport, REPORTS, type ReportName } from "../reports/reports.ts";
import { resolveTenant } from "../tenant/resolve.ts";

// Loose on purpose: readReportQuery validates and reports each problem with a /query/... pointer.
const ReportQuerySchema = z.object({
  desde: z.string().optional().openapi({ description: "From this date (yyyy-MM-dd, inclusive)", example: "2025-04-01" }),
  hasta: z.string().optional().openapi({ description: "To this date (yyyy-MM-dd, inclusive)", example: "2025-04-30" }),
  pageSize: z.string().optional().openapi({ description: `Rows per page, 1 to ${MAX_PAGE_SIZE} (default 100)` }),
  cursor: z.string().optional().openapi({ description: "nextCursor of the previous page" }),
  format: z.string().optional().openapi({ description: "json (default) or csv; Accept: text/csv also selects CSV" }),
});

const ReportPageSchema = z
  .object({
    items: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
    total: z.number().int(),
    pageSize: z.number().int(),
    nextCursor: z.string().nullable(),
  })
  .openapi("ReportPage");

const SUMMARIES: Record<ReportName, string> = {
  encf: "Issued e-CF (type, e-NCF, buyer, totals, state, security code, dates), for local back-up",
  compras: "Received e-CF with their ARECF and ACECF state",
  errores: "The error-audit log",
};

async function serve(c: Context<AppEnv>, name: ReportName) {
  const query = readReportQuery(name, c.req.query(), c.req.header("Accept"));
  const page = await readReport(c.env, name, c.get("tenant").id, query);
  if (query.format === "csv") {
    const headers: Record<string, string> = { "Content-Type": "text/csv; charset=utf-8", "X-Total-Count": String(page.total) };
    if (page.nextCursor) {
      const next = new URL(c.req.url);
      next.searchParams.set("cursor", page.nextCursor);
      headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
      headers["X-Next-Cursor"] = page.nextCursor;
    }
    return c.body(toCsv(Object.keys(REPORTS[name].columns), page.items), 200, headers);
  }
  return c.json(page, 200);
}

export const reportRoutes = newRouter();
reportRoutes.use("/reports/*", requireAuth, resolveTenant);

for (const name of ["encf", "compras", "errores"] as const) {
  reportRoutes.openapi(
    tenantRoute({
      method: "get",
      path: `/reports/${name}`,
      tags: ["Reports"],
      summary: SUMMARIES[name],
      request: { query: ReportQuerySchema },
      responses: {
        200: {
          description: "One page, in a stable order; CSV carries the next page in Link and X-Next-Cursor",
          content: { "application/json": { schema: ReportPageSchema }, "text/csv": { schema: z.string() } },
        },
        400: problemSchema("Invalid dates, page size, cursor or format"),
      },
    }),
    // The CSV branch returns a plain body, which the typed route cannot describe.
    ((c: Context<AppEnv>) => serve(c, name)) as never,
  );
}
