// The receiving side as the company sees it: its receiver settings and the e-CF suppliers sent it.
import { createRoute, z } from "@hono/zod-openapi";
import { requireAuth } from "../auth/middleware.ts";
import { bearerSecurity, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { requiresAuthentication, saveReceiverSettings } from "../receiving/receiver-auth.ts";
import { resolveTenant } from "../tenant/resolve.ts";

const ReceiverSettings = z
  .object({
    requireAuthentication: z.boolean().openapi({ description: "Demand a token from /fe/autenticacion on recepción and aprobación comercial" }),
  })
  .openapi("ReceiverSettings");

export const purchaseRoutes = newRouter();
purchaseRoutes.use("/receiver/*", requireAuth, resolveTenant);
purchaseRoutes.use("/compras/*", requireAuth, resolveTenant);

purchaseRoutes.openapi(
  createRoute({
    method: "get",
    path: "/receiver/settings",
    tags: ["Purchases"],
    summary: "The company's receiver settings",
    security: bearerSecurity,
    responses: { 200: { description: "Settings", content: { "application/json": { schema: ReceiverSettings } } }, 401: problemSchema("Not authenticated") },
  }),
  async (c) => c.json({ requireAuthentication: await requiresAuthentication(c.env.DB, c.get("tenant").id) }, 200),
);

purchaseRoutes.openapi(
  createRoute({
    method: "put",
    path: "/receiver/settings",
    tags: ["Purchases"],
    summary: "Change the company's receiver settings",
    security: bearerSecurity,
    request: { body: { required: true, content: { "application/json": { schema: ReceiverSettings } } } },
    responses: {
      200: { description: "Settings", content: { "application/json": { schema: ReceiverSettings } } },
      400: problemSchema("Invalid settings"),
      401: problemSchema("Not authenticated"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    await saveReceiverSettings(c.env.DB, c.get("tenant").id, body.requireAuthentication);
    return c.json(body, 200);
  },
);
