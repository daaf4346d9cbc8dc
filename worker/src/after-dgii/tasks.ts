// The month object's follow-up work on a receipt once DGII has spoken (and on purchases): each
// task is a row written in the same step as the change that causes it, run by the object's alarm
// with back-off until it succeeds or its deadline passes. Tasks with the same ordering key run
// strictly one after another (a receipt's events reach an endpoint in the order they happened).
import type { Receipt, ReceiptChanges } from "../ledger/schema.ts";
import { subscribedTo, type WebhookEndpoint } from "../webhooks/endpoints.ts";
import type { WebhookEvent } from "../webhooks/events.ts";
import { deliverWebhook, type WebhookPayload } from "../webhooks/deliver.ts";
import { deliverToBuyer, type BuyerDeliveryPayload } from "./buyer-delivery.ts";
import { sendReceiptEmail, type EmailPayload } from "./email.ts";

export type TaskKind = "buyer_delivery" | "event" | "webhook" | "email";

export interface NewTask {
  id?: string;
  kind: TaskKind;
  orderingKey: string;
  payload: unknown;
}

export interface Task {
  id: string;
  kind: TaskKind;
  orderingKey: string;
  payload: string;
  attempts: number;
  deadline: string;
  createdAt: string;
}

export interface TaskOutcome {
  status: "done" | "retry" | "failed";
  result?: unknown;
  /** Tasks this one leads to (an event becomes one delivery per subscribed endpoint). */
  then?: NewTask[];
}

/** What a task may read and change in its month object (it runs inside the object's alarm). */
export interface TaskContext {
  env: Env;
  now: Date;
  receipt(encf: string): Receipt | null;
  updateReceipt(id: string, changes: ReceiptChanges): Receipt;
  /** The issuer's webhook endpoints (read once per alarm run, however many events it fans out). */
  issuerEndpoints(companyId: string): Promise<WebhookEndpoint[]>;
}

/** How long each kind is tried: delivery to a buyer at least 72 hours, webhooks 3 days. */
export const TASK_DEADLINE_MS: Record<TaskKind, number> = {
  buyer_delivery: 72 * 3_600_000,
  event: 3 * 86_400_000,
  webhook: 3 * 86_400_000,
  email: 3 * 86_400_000,
};

/** Back-off between attempts of a task: 1, 2, 4 … seconds, at most an hour. */
export function taskBackoffMs(attempts: number): number {
  return Math.min(3600, 2 ** Math.max(0, attempts)) * 1000;
}

/** The payload of an event task: whose it is, what it is about, and the event itself. */
export interface EventPayload {
  companyId: string;
  subject: string;
  event: WebhookEvent;
}

/** The printed copy by e-mail to `to` (tasks of one receipt go out one after another). */
export function emailTask(companyId: string, encf: string, to: string): NewTask {
  return { kind: "email", orderingKey: `email:${encf}`, payload: { companyId, encf, to } satisfies EmailPayload };
}

export function eventTask(companyId: string, subject: string, event: WebhookEvent): NewTask {
  return { kind: "event", orderingKey: subject, payload: { companyId, subject, event } satisfies EventPayload };
}

export async function runTask(task: Task, context: TaskContext): Promise<TaskOutcome> {
  const pastDeadline = context.now.toISOString() >= task.deadline;
  switch (task.kind) {
    case "event": {
      const { companyId, subject, event } = JSON.parse(task.payload) as EventPayload;
      const endpoints = subscribedTo(await context.issuerEndpoints(companyId), event.type);
      return {
        status: "done",
        result: { endpoints: endpoints.map((e) => e.id) },
        then: endpoints.map((endpoint) => ({
          id: `msg_${crypto.randomUUID().replace(/-/g, "")}`,
          kind: "webhook",
          orderingKey: `${endpoint.id}:${subject}`,
          payload: { companyId, endpointId: endpoint.id, event } satisfies WebhookPayload,
        })),
      };
    }
    case "webhook":
      return deliverWebhook(
        context.env,
        task.id,
        JSON.parse(task.payload) as WebhookPayload,
        pastDeadline,
        context.now,
      );
    case "buyer_delivery":
      return deliverToBuyer(JSON.parse(task.payload) as BuyerDeliveryPayload, context, pastDeadline);
    case "email":
      return sendReceiptEmail(JSON.parse(task.payload) as EmailPayload, context, pastDeadline);
    default: {
      const unreachable: never = task.kind;
      throw new Error(`unknown task kind ${String(unreachable)}`);
    }
  }
}
