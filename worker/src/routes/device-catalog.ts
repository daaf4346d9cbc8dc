// What a paired till pulls of the shared catalogue (GET /devices/catalog, by version), and the
// per-device setting that says whether its cashiers may change prices (issuer and administrator).
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { requireAdmin } from "../auth/admin.ts";
import { requireAuth } from "../auth/middleware.ts";
import { DeviceCashier, deviceCashierView } from "../catalog/cashiers.ts";
import { Product, productView } from "../catalog/products.ts";
import { requireDevice, type DeviceEnv } from "../devices/auth.ts";
import type { DeviceRow } from "../devices/registry.ts";
import { updateDeviceSettings } from "../devices/settings.ts";
import { validationHook } from "../http/errors.ts";
import { adminRoute, problemSchema, tenantRoute } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { issuerLedger } from "../ledger/client.ts";
import { resolveTenant } from "../tenant/resolve.ts";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const deviceSecurity = [{ deviceAuth: [] as string[] }];
const DEFAULT_PULL = 500;
const MAX_PULL = 1000;

const CatalogQuery = z.object({
  since: z.string().optional().openapi({
    description: "The catalogue version the till holds (nextSince of its last pull); 0 or absent: everything",
    example: "0",
  }),
  limit: z
    .string()
    .optional()
    .openapi({ description: `Changes per answer, 1 to ${MAX_PULL} (default ${DEFAULT_PULL})` }),
});
const DeviceCatalog = z
  .object({
    version: z.number().int().openapi({ description: "The issuer's current catalogue version" }),
    products: z
      .array(Product)
      .openapi({ description: "Products changed after since, inactive ones included, in version order" }),
    cashiers: z.array(DeviceCashier).openapi({ description: "Cashiers changed after since, inactive ones included" }),
    nextSince: z.number().int().openapi({ description: "The since of the next pull" }),
    complete: z.boolean().openapi({ description: "false: more changes wait; pull again with nextSince at once" }),
    device: z.object({ canEditPrices: z.boolean() }),
  })
  .openapi("DeviceCatalog");
const SettingsPatch = z
  .object({
    canEditPrices: z
      .boolean()
      .openapi({ description: "The till's cashiers may change a product's price at the counter" }),
  })
  .partial()
  .strict()
  .openapi("DeviceSettingsPatch");
const DeviceSettings = z
  .object({ id: z.string(), name: z.string(), canEditPrices: z.boolean() })
  .openapi("DeviceSettings");
const settingsView = (d: DeviceRow): z.infer<typeof DeviceSettings> => ({
  id: d.id,
  name: d.name,
  canEditPrices: d.canEditPrices,
});

function readPull(query: z.infer<typeof CatalogQuery>): { since: number; limit: number } {
  const errors = [];
  const since = query.since === undefined ? 0 : /^\d{1,15}$/.test(query.since) ? Number(query.since) : NaN;
  if (Number.isNaN(since))
    errors.push({
      path: "/query/since",
      code: "invalid",
      message: "since must be a catalogue version: an integer from 0.",
    });
  const limit = query.limit === undefined ? DEFAULT_PULL : /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : NaN;
  if (!(limit >= 1 && limit <= MAX_PULL))
    errors.push({
      path: "/query/limit",
      code: "out_of_range",
      message: `limit must be an integer from 1 to ${MAX_PULL}.`,
    });
  if (errors.length) throw new ApiProblem("validation_failed", { detail: "The catalogue query is not valid.", errors });
  return { since, limit };
}

export const deviceCatalogRoutes = new OpenAPIHono<DeviceEnv>({ defaultHook: validationHook });

deviceCatalogRoutes.openapi(
  createRoute({
    method: "get",
    path: "/devices/catalog",
    tags: ["Devices"],
    summary: "The catalogue changes since the till's version: products, cashiers and the till's own settings",
    description:
      "A paired till asks with the version it holds (0 the first time) and gets the products and cashiers changed since, in version order, inactive ones included; it asks again with nextSince until complete is true, and keeps selling offline from what it has.",
    security: deviceSecurity,
    middleware: [requireDevice] as const,
    request: { query: CatalogQuery },
    responses: {
      200: { description: "One page of changes", ...json(DeviceCatalog) },
      400: problemSchema("since or limit not valid"),
      401: problemSchema("Token invalid or device revoked"),
    },
  }),
  async (c) => {
    const { since, limit } = readPull(c.req.valid("query"));
    const changes = await issuerLedger(c.env, c.get("tenant").id).catalogue().catalogChanges(since, limit);
    return c.json(
      {
        version: changes.version,
        products: changes.products.map(productView),
        cashiers: changes.cashiers.map(deviceCashierView),
        nextSince: changes.nextSince,
        complete: changes.complete,
        device: { canEditPrices: c.get("device").canEditPrices },
      },
      200,
    );
  },
);

const DeviceParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" } }),
});

deviceCatalogRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/devices/{id}",
    tags: ["Devices"],
    summary: "Change a till's settings (whether its cashiers may change prices)",
    description:
      "The issuer allows or forbids price changes at the counter on one till; the till learns it with its next catalogue pull.",
    middleware: [requireAuth, resolveTenant] as const,
    request: { params: DeviceParam, body: { required: true, ...json(SettingsPatch) } },
    responses: {
      200: { description: "The device's settings", ...json(DeviceSettings) },
      400: problemSchema("Unknown setting"),
      404: problemSchema("No such device of this issuer"),
    },
  }),
  async (c) =>
    c.json(
      settingsView(
        await updateDeviceSettings(c.env.DB, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json")),
      ),
      200,
    ),
);

deviceCatalogRoutes.openapi(
  adminRoute({
    method: "patch",
    path: "/admin/companies/{id}/devices/{deviceId}",
    tags: ["Administration"],
    summary: "Change a till's settings for an issuer",
    description:
      "What `npm run admin -- devices:update` sends: as PATCH /devices/{id}, for a device of the issuer named in the path.",
    middleware: [requireAdmin] as const,
    request: {
      params: z.object({
        id: z
          .string()
          .min(1)
          .openapi({ param: { name: "id", in: "path" }, description: "The company id" }),
        deviceId: z
          .string()
          .min(1)
          .openapi({ param: { name: "deviceId", in: "path" } }),
      }),
      body: { required: true, ...json(SettingsPatch) },
    },
    responses: {
      200: { description: "The device's settings", ...json(DeviceSettings) },
      400: problemSchema("Unknown setting"),
      404: problemSchema("No such device of this company"),
    },
  }),
  async (c) => {
    const { id, deviceId } = c.req.valid("param");
    return c.json(settingsView(await updateDeviceSettings(c.env.DB, id, deviceId, c.req.valid("json"))), 200);
  },
);
