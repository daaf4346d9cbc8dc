// /webhooks: Standard Webhooks endpoints of a company (its own receipts) or of a partner (every
// issuer it serves, when it names none in X-RNC-Emisor), their deliveries, and a retry.
import { z } from "@hono/zod-openapi";
import type { Context, Next } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import { IdParam, json } from "../http/schemas/common.ts";
import {
  type Delivery,
  DeliveryList,
  DeliveryParams,
  DeliveryQueued,
  EndpointCreated,
  EndpointList,
  NewEndpoint,
  PurchaseEventData,
  ReceiptEventData,
  WebhookHeaders,
} from "../http/schemas/webhooks.ts";
import { listDeliveries, retryDelivery } from "../webhooks/deliveries.ts";
import {
  createEndpoint,
  deleteEndpoint,
  endpointView,
  listEndpoints,
  ownedEndpoint,
  type Owner,
} from "../webhooks/endpoints.ts";
import { EVENT_TYPES } from "../webhooks/events.ts";

/** A partner naming no issuer acts for itself (its endpoints serve all its issuers); anyone else for the tenant. */
async function resolveOwner(c: Context<AppEnv>, next: Next) {
  const principal = c.get("principal");
  if (principal.ownerType === "partner" && !c.req.header("X-RNC-Emisor")?.trim()) return next();
  return resolveTenant(c, next);
}
const ownerOf = (c: Context<AppEnv>): Owner => {
  const tenant = c.get("tenant");
  return tenant
    ? { ownerType: "company", ownerId: tenant.id }
    : { ownerType: "partner", ownerId: c.get("principal").ownerId };
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
      201: { description: "Registered", ...json(EndpointCreated) },
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
    responses: { 200: { description: "Endpoints", ...json(EndpointList) } },
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
    responses: { 200: { description: "Deliveries", ...json(DeliveryList) }, 404: problemSchema("No such endpoint") },
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
    request: { params: DeliveryParams },
    responses: {
      202: { description: "Queued", ...json(DeliveryQueued) },
      404: problemSchema("No such endpoint or delivery"),
    },
  }),
  async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    await ownedEndpoint(c.env, ownerOf(c), id);
    if (!(await retryDelivery(c.env, ownerOf(c), id, deliveryId)))
      throw new ApiProblem("not_found", { detail: `No delivery ${deliveryId} to webhook ${id}.` });
    return c.json({ id: deliveryId, status: "pending" as const }, 202);
  },
);

const EVENT_DATA: Record<(typeof EVENT_TYPES)[number], { summary: string; data: z.ZodType }> = {
  "receipt.accepted": { summary: "DGII accepted a receipt", data: ReceiptEventData },
  "receipt.accepted_conditionally": { summary: "DGII accepted a receipt conditionally", data: ReceiptEventData },
  "receipt.rejected": { summary: "DGII rejected a receipt", data: ReceiptEventData },
  "receipt.contingency": {
    summary: "A receipt could not reach DGII: signed in contingency, sent later",
    data: ReceiptEventData,
  },
  "receipt.delivered": {
    summary: "The buyer's reception service acknowledged the receipt (ARECF Estado 0)",
    data: ReceiptEventData,
  },
  "receipt.delivery_failed": {
    summary: "The buyer refused the receipt (ARECF Estado 1) or could not be reached for 72 hours",
    data: ReceiptEventData,
  },
  "approval.received": {
    summary: "The buyer's commercial approval or rejection (ACECF) of a receipt arrived",
    data: ReceiptEventData,
  },
  "purchase.received": { summary: "A supplier's e-CF was received and acknowledged", data: PurchaseEventData },
  "purchase.unconfirmed": {
    summary: "DGII still does not know a received e-CF after 4 days (not_found_at_dgii): it stays out of the 606",
    data: PurchaseEventData,
  },
  "certificate.expiring": {
    summary: "The signing certificate expires within 15 days, and again within 3 (once each per certificate)",
    data: z.object({
      rncEmisor: z.string(),
      certificateSerial: z.string().nullable(),
      notAfter: z.string().nullable(),
      withinDays: z
        .union([z.literal(15), z.literal(3)])
        .openapi({ description: "The notice's mark: the certificate expires within this many days" }),
    }),
  },
  "quota.near_limit": {
    summary: "More than 90 % of the month's quota is used (once a month)",
    data: z.object({ rncEmisor: z.string(), month: z.string(), used: z.number().int(), limit: z.number().int() }),
  },
  "device.key_handed_over": {
    summary: "A till received the issuer's signing key (at pairing, after an owner's approval, or a re-key)",
    data: z.object({
      rncEmisor: z.string(),
      deviceId: z.string(),
      deviceName: z.string(),
      createdBy: z.string().nullable().openapi({ description: "Who registered the till: user:…, key:… or admin" }),
      approvedBy: z.string().nullable().openapi({ description: "The owner who approved it, when it needed approval" }),
      certificateSerial: z.string().nullable(),
    }),
  },
  "range.low": {
    summary: "Less than a tenth of an e-NCF range is left (once per range): request a new range from DGII",
    data: z.object({
      rncEmisor: z.string(),
      tipoeCF: z.string(),
      rangeTo: z.number().int(),
      remaining: z.number().int(),
      expiresOn: z.string(),
    }),
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
      headers: WebhookHeaders,
      body: { required: true, ...json(z.object({ type: z.literal(type), timestamp: z.string(), data })) },
    },
    responses: {
      200: { description: "Any 2xx acknowledges the delivery; anything else (or no answer in 10 s) is retried" },
    },
  });
}
