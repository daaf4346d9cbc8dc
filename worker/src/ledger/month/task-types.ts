// The month object's follow-up work as data: what a task is, what it may touch when it runs, and
// the payload of each kind. Every module that runs a kind of task imports these; only tasks.ts
// dispatches, so none of them imports another.
import type { EventType } from "@ecf/shared/webhook-events";
import type { webhookEndpoints } from "../../db/webhooks-tables.ts";
import type { DeliveryRecord } from "./receipt-steps.ts";
import type { Receipt } from "./month-row-types.ts";

/** An event as a task carries it to the endpoints: `{ type, timestamp, data }`. */
export interface WebhookEvent {
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

export type TaskKind = "buyer_delivery" | "event" | "webhook" | "email" | "credit_note";

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
  /** What one attempt at the buyer's delivery found (its event is queued with it). */
  recordDelivery(id: string, record: DeliveryRecord): void;
  /** The receipt's e-mail log, as it is after a send. */
  recordEmails(id: string, emails: string): void;
  /** The issuer's webhook endpoints (read once per alarm run, however many events it fans out). */
  issuerEndpoints(companyId: string): Promise<(typeof webhookEndpoints.$inferSelect)[]>;
}

/**
 * How long each kind is tried: delivery to a buyer at least 72 hours, webhooks 3 days; an owed
 * credit note 30 days (what stops it, a used-up quota or range, may wait for the owner).
 */
export const TASK_DEADLINE_MS: Record<TaskKind, number> = {
  buyer_delivery: 72 * 3_600_000,
  event: 3 * 86_400_000,
  webhook: 3 * 86_400_000,
  email: 3 * 86_400_000,
  credit_note: 30 * 86_400_000,
};

/**
 * An owed credit note is first due this long after it was queued: the request that issued the E31
 * tries the E34 itself right away, the task is there for when that attempt fails or dies.
 */
export const CREDIT_NOTE_GRACE_MS = 2 * 60_000;

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

/** The printed copy of a receipt by e-mail to `to`. */
export interface EmailPayload {
  companyId: string;
  encf: string;
  to: string;
}

/** A receipt DGII accepted, to deliver to its buyer. */
export interface BuyerDeliveryPayload {
  companyId: string;
  encf: string;
}

/** The E34 owed for an E32 exchanged for the E31 `e31` (public-receipt/e32-credit-note.ts). */
export interface CreditNotePayload {
  companyId: string;
  e32: string;
  e31: string;
}

/** One webhook delivery: an event for one endpoint. */
export interface WebhookPayload {
  companyId: string;
  endpointId: string;
  event: WebhookEvent;
}

/** The printed copy by e-mail to `to` (tasks of one receipt go out one after another). */
export function emailTask(companyId: string, encf: string, to: string): NewTask {
  return { kind: "email", orderingKey: `email:${encf}`, payload: { companyId, encf, to } satisfies EmailPayload };
}

export function eventTask(companyId: string, subject: string, event: WebhookEvent): NewTask {
  return { kind: "event", orderingKey: subject, payload: { companyId, subject, event } satisfies EventPayload };
}

/** The E34 voiding `e32`, owed once `e31` is recorded; its id is the E32's, so it is queued once. */
export function creditNoteTask(companyId: string, e32: string, e31: string): NewTask {
  return {
    id: `credit-note:${e32}`,
    kind: "credit_note",
    orderingKey: `credit-note:${e32}`,
    payload: { companyId, e32, e31 } satisfies CreditNotePayload,
  };
}
