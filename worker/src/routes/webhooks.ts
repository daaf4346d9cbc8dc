// /webhooks: Standard Webhooks endpoints of a company (its own receipts) or of a partner (every
// issuer it serves, when it names none in X-RNC-Emisor), their deliveries, and a retry.
import { z } from "@hono/zod-openapi";
import type { Context, Next } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../http/problem.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import { IssueAnswer } from "./issuing.ts";
import { listDeliveries, retryDelivery } from "../webhooks/deliveries.ts";
import { createEndpoint, deleteEndpoint, endpointView, listEndpoints, ownedEndpoint, type Owner } from "../webhooks/endpoints.ts";
import { EVENT_TYPES } from "../webhooks/events.ts";
import { deprecated } from "../http/deprecated.ts";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });

const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    scope: z.enum(["company", "partner"]).openapi({ description: "partner: registered by a partner for every issuer it serves" }),
    disabledAt: z.string().nullable().openapi({ description: "Set when deliveries failed for 3 days; register the endpoint again to resume" }),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("WebhookEndpoint");
const NewEndpoint = z
  .object({
    url: z.string().url().openapi({ description: "https URL (http to loopback only against the local sandbox)", example: "https://erp.example.com/hooks/ecf" }),
    events: z.array(z.enum(EVENT_TYPES)).min(1),
  })
  .openapi("NewWebhookEndpoint");
const Delivery = z
  .object({
    id: z.string().openapi({ description: "The webhook-id header of the delivery (stable across retries)" }),
    status: z.enum(["pending", "done", "failed"]),
    attempts: z.number().int(),
    event: z.enum(EVENT_TYPES),
    lastResult: z
      .union([
        z.object({ httpStatus: z.number().int(), body: z.string().openapi({ description: "The first 200 characters of the endpoint's answer" }) }),
        z.object({ error: z.string().openapi({ description: "Why no answer came (timeout, refused URL, endpoint disabled or deleted)" }) }),
      ])
      .nullable()
      .openapi({ description: "The last attempt, or null before the first" }),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi("WebhookDelivery");
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

/** A partner naming no issuer acts for itself (its endpoints serve all its issuers); anyone else for the tenant. */
async function resolveOwner(c: Context<AppEnv>, next: Next) {
  const principal = c.get("principal");
  if (principal.ownerType === "partner" && !c.req.header("X-RNC-Emisor")?.trim()) return next();
  return resolveTenant(c, next);
}
const ownerOf = (c: Context<AppEnv>): Owner => {
  const tenant = c.get("tenant");
  return tenant ? { ownerType: "company", ownerId: tenant.id } : { ownerType: "partner", ownerId: c.get("principal").ownerId };
};

export const webhookRoutes = newRouter();
// "/webhooks/*" also matches "/webhooks" itself: one registration, one lookup per request.
webhookRoutes.use("/webhooks/*", requireAuth, resolveOwner);

webhookRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/webhooks",
    tags: ["Webhooks"],
    summary: "Register an endpoint (Standard Webhooks); the secret is shown once",
    description: [
      "Every delivery is a POST of `{ type, timestamp, data }` with `webhook-id`, `webhook-timestamp` and",
      "`webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed by the `whsec_` secret's bytes.",
      "At least once, in order per receipt, retried with back-off for 3 days; an endpoint failing for 3 days is disabled.",
      "A partner token without X-RNC-Emisor registers the endpoint for every issuer the partner serves.",
    ].join(" "),
    request: { body: { required: true, ...json(NewEndpoint) } },
    responses: {
      201: { description: "Registered", ...json(Endpoint.extend({ secret: z.string().openapi({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }) })) },
      400: problemSchema("Invalid URL or events"),
    },
  }),
  async (c) => {
    const { url, events } = c.req.valid("json");
    return c.json(await createEndpoint(c.env, ownerOf(c), url, events), 201);
  },
);

webhookRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/webhooks",
    tags: ["Webhooks"],
    summary: "The endpoints registered",
    description:
      "The endpoints that receive the caller's events (a partner without X-RNC-Emisor: its own, serving all its issuers), with the events each takes and whether it was disabled after 3 days of failures; secrets are never shown again.",
    responses: { 200: { description: "Endpoints", ...json(z.object({ webhooks: z.array(Endpoint) })) } },
  }),
  async (c) => c.json({ webhooks: (await listEndpoints(c.env, ownerOf(c))).map(endpointView) }, 200),
);

webhookRoutes.openapi(
  tenantRoute({
    method: "delete",
    path: "/webhooks/{id}",
    tags: ["Webhooks"],
    summary: "Remove an endpoint; nothing more is sent to it",
    description:
      "Deletes the endpoint: deliveries still pending to it are dropped and no new event is sent. To rotate a secret, register the URL again and then remove the old endpoint.",
    request: { params: IdParam },
    responses: { 204: { description: "Removed" }, 404: problemSchema("No such endpoint") },
  }),
  async (c) => {
    await deleteEndpoint(c.env, ownerOf(c), c.req.valid("param").id);
    return c.body(null, 204);
  },
);

webhookRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/webhooks/{id}/deliveries",
    tags: ["Webhooks"],
    summary: "Recent deliveries to an endpoint, newest first",
    description:
      "What was sent to the endpoint and how it went (pending, done, failed), with the attempts made and the last answer: for debugging a receiver. The id is the webhook-id header the endpoint saw.",
    request: { params: IdParam },
    responses: { 200: { description: "Deliveries", ...json(z.object({ deliveries: z.array(Delivery) })) }, 404: problemSchema("No such endpoint") },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await ownedEndpoint(c.env, ownerOf(c), id);
    return c.json({ deliveries: (await listDeliveries(c.env, ownerOf(c), id)) as z.infer<typeof Delivery>[] }, 200);
  },
);

webhookRoutes.openapi(
  tenantRoute({
    method: "post",
    path: "/webhooks/{id}/deliveries/{deliveryId}/retry",
    tags: ["Webhooks"],
    summary: "Send a delivery again (a failed one is tried for 3 more days)",
    description:
      "Queues the delivery again with the same webhook-id and body, e.g. after fixing a receiver that failed for 3 days; it is tried with back-off for 3 more days. The endpoint must still exist.",
    request: { params: IdParam.extend({ deliveryId: z.string().openapi({ param: { name: "deliveryId", in: "path" } }) }) },
    responses: { 202: { description: "Queued", ...json(z.object({ id: z.string(), status: z.literal("pending") })) }, 404: problemSchema("No such endpoint or delivery") },
  }),
  async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    await ownedEndpoint(c.env, ownerOf(c), id);
    if (!(await retryDelivery(c.env, ownerOf(c), id, deliveryId))) throw new ApiProblem("not_found", { detail: `No delivery ${deliveryId} to webhook ${id}.` });
    return c.json({ id: deliveryId, status: "pending" as const }, 202);
  },
);

// Each event as an OpenAPI 3.1 webhook: what an endpoint receives, signed as Standard Webhooks say.
const ReceiptEventData = IssueAnswer.extend({ rncEmisor: z.string() });
const PurchaseEventData = z.object({
  rncComprador: z.string().openapi({ description: "The issuer that received the supplier's e-CF" }),
  id: z.string(),
  rncEmisor: z.string(),
  razonSocialEmisor: z.string().nullable(),
  encf: z.string(),
  tipoeCF: z.string(),
  fechaEmision: z.string().openapi({ description: "FechaEmision, yyyy-MM-dd" }),
  montoTotal: z.string(),
  totalITBIS: z.string().nullable(),
  arecfEstado: z.string().openapi({ description: 'Our ARECF\'s Estado: "0" received, "1" not received' }),
  fechaHoraAcuseRecibo: z.string(),
  issueDate: deprecated(z.string(), "`fechaEmision`"),
  totalItbis: deprecated(z.string().nullable(), "`totalITBIS`"),
});
const EVENT_DATA: Record<(typeof EVENT_TYPES)[number], { summary: string; data: z.ZodType }> = {
  "receipt.accepted": { summary: "DGII accepted a receipt", data: ReceiptEventData },
  "receipt.accepted_conditionally": { summary: "DGII accepted a receipt conditionally", data: ReceiptEventData },
  "receipt.rejected": { summary: "DGII rejected a receipt", data: ReceiptEventData },
  "receipt.contingency": { summary: "A receipt could not reach DGII: signed in contingency, sent later", data: ReceiptEventData },
  "receipt.delivered": { summary: "The buyer's reception service acknowledged the receipt (ARECF Estado 0)", data: ReceiptEventData },
  "receipt.delivery_failed": { summary: "The buyer refused the receipt (ARECF Estado 1) or could not be reached for 72 hours", data: ReceiptEventData },
  "approval.received": { summary: "The buyer's commercial approval or rejection (ACECF) of a receipt arrived", data: ReceiptEventData },
  "purchase.received": { summary: "A supplier's e-CF was received and acknowledged", data: PurchaseEventData },
  "certificate.expiring": {
    summary: "The signing certificate expires within 15 days (once per certificate)",
    data: z.object({ rncEmisor: z.string(), certificateSerial: z.string().nullable(), notAfter: z.string().nullable() }),
  },
  "quota.near_limit": {
    summary: "More than 90 % of the month's quota is used (once a month)",
    data: z.object({ rncEmisor: z.string(), month: z.string(), used: z.number().int(), limit: z.number().int() }),
  },
};
for (const type of EVENT_TYPES) {
  const { summary, data } = EVENT_DATA[type];
  webhookRoutes.openAPIRegistry.registerWebhook({
    method: "post",
    path: type,
    tags: ["Webhooks"],
    summary,
    description: `Posted to every endpoint subscribed to \`${type}\`, signed after Standard Webhooks (verify webhook-signature with the endpoint's secret). Deliveries are at least once and in order per receipt: deduplicate on webhook-id.`,
    request: {
      headers: z.object({
        "webhook-id": z.string(),
        "webhook-timestamp": z.string(),
        "webhook-signature": z.string().openapi({ example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=" }),
      }),
      body: { required: true, ...json(z.object({ type: z.literal(type), timestamp: z.string(), data })) },
    },
    responses: { 200: { description: "Any 2xx acknowledges the delivery; anything else (or no answer in 10 s) is retried" } },
  });
}
