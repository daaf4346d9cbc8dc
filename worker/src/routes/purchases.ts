// The receiving side as the company sees it: its receiver settings and the e-CF suppliers sent it.
import { z } from "@hono/zod-openapi";
import { requireAuth } from "../auth/middleware.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { approvePurchase } from "../receiving/outgoing-approval.ts";
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
  tenantRoute({
    method: "get",
    path: "/receiver/settings",
    tags: ["Purchases"],
    summary: "The company's receiver settings",
    responses: { 200: { description: "Settings", content: { "application/json": { schema: ReceiverSettings } } } },
  }),
  async (c) => c.json({ requireAuthentication: await requiresAuthentication(c.env.DB, c.get("tenant").id) }, 200),
);

purchaseRoutes.openapi(
  tenantRoute({
    method: "put",
    path: "/receiver/settings",
    tags: ["Purchases"],
    summary: "Change the company's receiver settings",
    request: { body: { required: true, content: { "application/json": { schema: ReceiverSettings } } } },
    responses: {
      200: { description: "Settings", content: { "application/json": { schema: ReceiverSettings } } },
      400: problemSchema("Invalid settings"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    await saveReceiverSettings(c.env.DB, c.get("tenant").id, body.requireAuthentication);
    return c.json(body, 200);
  },
);

const ApprovalBody = z
  .object({
    estado: z.enum(["aceptado", "rechazado"]),
    motivo: z.string().trim().min(1).max(250).optional().openapi({ description: "DetalleMotivoRechazo: required when rejecting" }),
  })
  .refine((b) => b.estado === "aceptado" || b.motivo !== undefined, { message: "motivo is required to reject", path: ["motivo"] })
  .openapi("CommercialApproval");

const Delivery = z.object({ outcome: z.enum(["sent", "failed", "skipped"]), detail: z.string() });

purchaseRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/compras/{id}/aprobacion",
    tags: ["Purchases"],
    summary: "Accept or reject a received e-CF: a signed ACECF to the supplier and a copy to DGII",
    request: {
      params: z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) }),
      body: { required: true, content: { "application/json": { schema: ApprovalBody } } },
    },
    responses: {
      200: {
        description: "Decision recorded; each delivery's outcome (repeat the same decision to retry a failed one)",
        content: { "application/json": { schema: z.object({ id: z.string(), encf: z.string(), estado: z.enum(["aceptado", "rechazado"]), supplier: Delivery, dgii: Delivery }).openapi("ApprovalResult") } },
      },
      400: problemSchema("Invalid decision"),
      404: problemSchema("No such purchase for this company"),
      409: problemSchema("A different decision was already recorded"),
      422: problemSchema("No signing certificate, or a type that takes no approval"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    return c.json(await approvePurchase(c.env, c.get("tenant"), c.req.valid("param").id, body.estado, body.motivo, new Date()), 200);
  },
);
