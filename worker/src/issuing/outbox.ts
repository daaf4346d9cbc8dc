import { eq } from "drizzle-orm";
import { recordBackgroundFailure } from "../audit/log.ts";
import { database } from "../db/client.ts";
import { receipts } from "../db/schema.ts";
import { isFinal } from "./estado.ts";
import { archivedXml, claimReceipt, dueReceipts, releaseClaim, transmitReceipt, type Receipt } from "./transmit.ts";

/** What the queue carries: only the receipt's id; everything else is read fresh from D1/R2. */
export interface OutboxMessage {
  receiptId: string;
}

export type ProcessResult = "final" | "pending" | "busy" | "missing";

/** The sweeper's pace for one receipt: never sooner than 30 s, never later than 10 minutes. */
const MIN_RETRY_MS = 30_000;
const MAX_RETRY_MS = 600_000;

/**
 * When the sweeper should look at a pending receipt again: after as long as the receipt has
 * existed (30 s floor, 10 min cap). Attempts then fall at geometrically growing ages (about 1, 2,
 * 4, 8… times the first), which is exponential back-off without keeping a count of attempts, so
 * a receipt stuck for hours is tried every 10 minutes instead of on every tick.
 */
export function nextAttemptAt(createdAt: string, now: Date): string {
  const age = now.getTime() - Date.parse(createdAt);
  const delay = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, Number.isFinite(age) ? age : 0));
  return new Date(now.getTime() + delay).toISOString();
}

/** Who moves a receipt forward in the background, for the audit log. */
export interface Worker {
  actor: "queue" | "sweeper";
  /** Ties the audit entry to the queue message or the sweep run. */
  runId: string;
}

/** A rejection DGII gave while nobody was waiting for the answer goes to the issuer's audit log. */
async function auditOutcome(env: Env, before: Receipt, after: Receipt, worker: Worker): Promise<void> {
  if (after.status !== "rejected" || before.status === "rejected") return;
  const mensajes = after.dgiiMensajes ? (JSON.parse(after.dgiiMensajes) as { codigo: string | null; valor: string }[]) : [];
  const reasons = mensajes.map((m) => (m.codigo ? `${m.codigo}: ${m.valor}` : m.valor)).join("; ");
  await recordBackgroundFailure(env.DB, {
    companyId: after.companyId,
    actor: worker.actor,
    action: worker.actor === "queue" ? "QUEUE ecf-outbox" : "CRON sweeper",
    code: "dgii_rejected",
    status: 200,
    detail: `${after.encf}: ${reasons} (was ${before.status === "contingency" ? "in contingency" : "in process"})`,
    requestId: worker.runId,
  });
}

/** Back-off between attempts of one receipt: 1 s, 2 s, 4 s, 8 s, … capped at 10 minutes. */
export function backoffSeconds(attempt: number): number {
  return Math.min(600, 2 ** Math.max(0, attempt - 1));
}

/**
 * Moves one queued receipt forward (send, recover, or poll) under a claim, so the queue and the
 * sweeper never work on the same receipt at once.
 */
export async function processReceipt(env: Env, receiptId: string, now = new Date(), worker: Worker = { actor: "sweeper", runId: crypto.randomUUID() }): Promise<ProcessResult> {
  const existing = await database(env.DB).query.receipts.findFirst({ where: eq(receipts.id, receiptId) });
  if (!existing) return "missing";
  if (isFinal(existing.status)) return "final";
  const claimed = await claimReceipt(env.DB, receiptId, now);
  if (!claimed) return "busy";
  let result: Receipt;
  try {
    result = await transmitReceipt(env, claimed, await archivedXml(env, claimed), { delays: [0], now });
  } finally {
    await releaseClaim(env.DB, receiptId);
  }
  await auditOutcome(env, claimed, result, worker);
  if (isFinal(result.status)) return "final";
  // Still pending: the sweeper leaves it alone until then (the queue keeps its own back-off).
  await database(env.DB)
    .update(receipts)
    .set({ nextAttemptAt: nextAttemptAt(result.createdAt, now) })
    .where(eq(receipts.id, receiptId));
  return "pending";
}

/** The queue consumer: final receipts are acknowledged, the rest retried with back-off. */
export async function consumeOutbox(batch: MessageBatch<OutboxMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      const result = await processReceipt(env, message.body.receiptId, new Date(), { actor: "queue", runId: `queue:${message.id}` });
      if (result === "pending" || result === "busy") message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      else message.ack();
    } catch (error) {
      console.error("outbox message failed", message.body, error);
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
}

/**
 * The cron sweeper: anything not final, not held and due (a lost queue message, a crash between
 * sending and recording) is processed again, the longest-waiting first. Returns how many
 * receipts it looked at.
 */
export async function sweepOutbox(env: Env, now = new Date(), options: { limit?: number } = {}): Promise<{ looked: number; finished: number }> {
  const due = await dueReceipts(env.DB, now, options.limit);
  const worker: Worker = { actor: "sweeper", runId: `sweep:${crypto.randomUUID()}` };
  let finished = 0;
  for (const receipt of due) {
    try {
      if ((await processReceipt(env, receipt.id, now, worker)) === "final") finished++;
    } catch (error) {
      console.error("sweeper failed on", receipt.encf, error);
    }
  }
  return { looked: due.length, finished };
}
