// Shifts (cuadre de caja): a till hands over each shift it opens and closes (PUT /devices/shifts/{id}),
// and the issuer lists them per day and till with their Z report's totals (GET /reports/turnos).
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { requireAuth } from "../auth/middleware.ts";
import { requireDeviceForReceipts, type DeviceEnv } from "../devices/auth.ts";
import type { AppEnv } from "../env.ts";
import { validationHook } from "../http/errors.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { toCsv } from "../reports/csv.ts";
import { MAX_PAGE_SIZE } from "../reports/paging.ts";
import { readShiftReport, readShiftReportQuery, SHIFT_REPORT_COLUMNS } from "../shifts/report.ts";
import { ShiftBodySchema, ShiftViewSchema } from "../shifts/shift-schema.ts";
import { uploadShift } from "../shifts/upload.ts";
import { resolveTenant } from "../tenant/resolve.ts";

export const shiftRoutes = new OpenAPIHono<DeviceEnv>({ defaultHook: validationHook });

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });

shiftRoutes.openapi(
  createRoute({
    method: "put",
    path: "/devices/shifts/{id}",
    tags: ["Devices"],
    summary: "Hand over a shift (cuadre de caja) the till opened or closed, with its Z report",
    description:
      "For the till: sent when a cashier opens a shift and again when it is closed (counted cash and the Z report the till printed), retried until answered. The same upload again changes nothing; a closed shift is final, so any other change after closing is a 409. A revoked till may still hand over shifts opened before its revocation.",
    security: [{ deviceAuth: [] as string[] }],
    middleware: [requireDeviceForReceipts] as const,
    request: {
      params: z.object({
        id: z.uuid().openapi({
          param: { name: "id", in: "path" },
          description: "The shift id the till made",
          example: "3f1c2a9e-8d4b-4c1e-9a57-1b2c3d4e5f60",
        }),
      }),
      body: { required: true, ...json(ShiftBodySchema) },
    },
    responses: {
      200: { description: "Stored already (a repeat) or closed now", ...json(ShiftViewSchema) },
      201: { description: "A new shift, stored", ...json(ShiftViewSchema) },
      400: problemSchema(
        "A malformed field, closing without all of closedAt, countedCash and report, or a Z report whose cash lines do not add up",
      ),
      401: problemSchema("Token invalid or device revoked"),
      409: problemSchema(
        "The shift is closed (final), a field fixed at opening changed, or the id is another till's shift",
      ),
    },
  }),
  async (c) => {
    const { status, shift } = await uploadShift(
      c.env,
      c.get("tenant"),
      c.get("device"),
      c.req.valid("param").id,
      c.req.valid("json"),
    );
    return c.json(shift, status);
  },
);

/**
 * The issuer's token and tenant, unless a router mounted on the same path (the reports' /reports/*)
 * checked them already for this request: checking twice would read D1 twice.
 */
const issuerAuth = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("tenant") && c.get("principal")) return void (await next());
  await requireAuth(c, async () => void (await resolveTenant(c, next)));
});

const TurnosQuerySchema = z.object({
  Desde: z
    .string()
    .optional()
    .openapi({ description: "From this day, inclusive: yyyy-MM-dd or dd-MM-yyyy", example: "2026-04-01" }),
  Hasta: z
    .string()
    .optional()
    .openapi({ description: "To this day, inclusive: yyyy-MM-dd or dd-MM-yyyy", example: "30-04-2026" }),
  deviceId: z.string().optional().openapi({ description: "Only this till's shifts (GET /devices)" }),
  pageSize: z
    .string()
    .optional()
    .openapi({ description: `Rows per page, 1 to ${MAX_PAGE_SIZE} (default 100)` }),
  cursor: z.string().optional().openapi({ description: "nextCursor of the previous page" }),
  format: z.string().optional().openapi({ description: "json (default) or csv; Accept: text/csv also selects CSV" }),
});

const TurnoRow = z
  .object(Object.fromEntries(SHIFT_REPORT_COLUMNS.map((name) => [name, z.union([z.string(), z.number(), z.null()])])))
  .openapi("TurnoReportRow", {
    description:
      "One shift: its day (Santo Domingo) and till, the cashier, open or closed, the opening float, the Z report's sales, ITBIS, refunds and payments by method (cash, card, transfer), and expected vs counted cash with the difference (null while open)",
  });
const TurnosPage = z
  .object({
    items: z.array(TurnoRow),
    total: z.number().int(),
    pageSize: z.number().int(),
    nextCursor: z.string().nullable(),
  })
  .openapi("TurnosReportPage");

shiftRoutes.use("/reports/turnos", issuerAuth);
shiftRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/reports/turnos",
    tags: ["Reports"],
    summary: "Shifts (cuadre de caja) per day and till, with their Z report's totals and cash difference",
    description:
      "For the store's manager or accountant: every shift the issuer's tills handed over, ordered by day, till and opening time, with the cashier, the opening float, sales, ITBIS, refunds, payments by method and expected vs counted cash. JSON pages or CSV, like the other reports.",
    request: { query: TurnosQuerySchema },
    responses: {
      200: {
        description: "One page, in a stable order; CSV carries the next page in Link and X-Next-Cursor",
        content: { "application/json": { schema: TurnosPage }, "text/csv": { schema: z.string() } },
      },
      400: problemSchema("Invalid dates, deviceId, page size, cursor or format"),
    },
  }),
  (c) => serveShiftReport(c),
);

/** One page of shifts: CSV (a plain body, with the next page in Link), or JSON. */
async function serveShiftReport<E extends AppEnv>(c: Context<E>) {
  const query = readShiftReportQuery(c.req.query(), c.req.header("Accept"));
  const page = await readShiftReport(c.env, c.get("tenant").id, query);
  if (query.format === "json") return c.json(page, 200);
  const headers: Record<string, string> = {
    "Content-Type": "text/csv; charset=utf-8",
    "X-Total-Count": String(page.total),
  };
  if (page.nextCursor) {
    const next = new URL(c.req.url);
    next.searchParams.set("cursor", page.nextCursor);
    headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
    headers["X-Next-Cursor"] = page.nextCursor;
  }
  return c.body(toCsv(SHIFT_REPORT_COLUMNS, page.items), 200, headers);
}
