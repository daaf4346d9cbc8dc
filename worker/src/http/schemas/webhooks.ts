// Webhooks as the API shows them: endpoints, deliveries, and what each event carries.
import { z } from "@hono/zod-openapi";
import { ESTADOS_DGII } from "../../ledger/month/estado-dgii.ts";
import { EVENT_TYPES } from "../../webhooks/events.ts";
import { IdParam } from "./common.ts";
import { IssueAnswer } from "../../answers/receipt-schema.ts";

export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    scope: z
      .enum(["company", "partner"])
      .openapi({ description: "partner: registered by a partner for every issuer it serves" }),
    disabledAt: z
      .string()
      .nullable()
      .openapi({ description: "Set when deliveries failed for 3 days; register the endpoint again to resume" }),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("WebhookEndpoint");

export const NewEndpoint = z
  .object({
    url: z.string().url().openapi({
      description: "https URL (http to loopback only against the local sandbox)",
      example: "https://erp.example.com/hooks/ecf",
    }),
    events: z.array(z.enum(EVENT_TYPES)).min(1),
  })
  .openapi("NewWebhookEndpoint");

export const Delivery = z
  .object({
    id: z.string().openapi({ description: "The webhook-id header of the delivery (stable across retries)" }),
    status: z.enum(["pending", "done", "failed"]),
    attempts: z.number().int(),
    event: z.enum(EVENT_TYPES),
    encf: z.string().nullable().openapi({
      description: "The e-NCF the event is about (a receipt's or a purchase's), or null for an event about none",
    }),
    lastResult: z
      .union([
        z.object({
          httpStatus: z.number().int(),
          body: z.string().openapi({ description: "The first 200 characters of the endpoint's answer" }),
        }),
        z.object({
          error: z
            .string()
            .openapi({ description: "Why no answer came (timeout, refused URL, endpoint disabled or deleted)" }),
        }),
      ])
      .nullable()
      .openapi({ description: "The last attempt, or null before the first" }),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

// Each event as an OpenAPI 3.1 webhook: what an endpoint receives, signed as Standard Webhooks say.
export const ReceiptEventData = IssueAnswer.extend({ rncEmisor: z.string() });

export const PurchaseEventData = z.object({
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
  estadoDgii: z.enum(ESTADOS_DGII).openapi({
    description: "Whether DGII knows the e-CF (consultaestado): only confirmed or conditional purchases count",
  }),
});

export const EndpointCreated = Endpoint.extend({
  secret: z.string().openapi({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).openapi("WebhookEndpointCreated");
export const EndpointList = z.object({ webhooks: z.array(Endpoint) }).openapi("WebhookEndpointList");
export const DeliveryList = z.object({ deliveries: z.array(Delivery) }).openapi("WebhookDeliveryList");
export const DeliveryQueued = z
  .object({ id: z.string(), status: z.literal("pending") })
  .openapi("WebhookDeliveryQueued");
export const DeliveryParams = IdParam.extend({
  deliveryId: z.string().openapi({ param: { name: "deliveryId", in: "path" } }),
});

/** What an endpoint receives: the headers Standard Webhooks define and `{ type, timestamp, data }`. */
export const WebhookHeaders = z.object({
  "webhook-id": z.string(),
  "webhook-timestamp": z.string(),
  "webhook-signature": z.string().openapi({ example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=" }),
});
