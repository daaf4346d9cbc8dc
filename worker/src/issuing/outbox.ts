import { eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { receipts } from "../db/schema.ts";
import { isFinal } from "./estado.ts";
import { archivedXml, claimReceipt, dueReceipts, releaseClaim, transmitReceipt, type Receipt } from "./transmit.ts";

/** What the queue carries: only the receipt's id; everything else is read fresh from D1/R2. */
export interface OutboxMessage {
  receiptId: string;
}

export type ProcessResult = "final" | "pending" | "busy" | "missing";

/** Back-off between attempts of one receipt: 1 s, 2 s, 4 s, 8 s, … capped at 10 minutes. */
export function backoffSeconds(attempt: number): number {
  return Math.min(600, 2 ** Math.max(0, attempt - 1));
}

/**
 * Moves one queued receipt forward (send, recover, or poll) under a claim, so the queue and the
 * sweeper never work on the same receipt at once.
 */
export async function processReceipt(env: Env, receiptId: string, now = new Date()): Promise<ProcessResult> {
  const existing = await database(env.DB).query.receipts.findFirst({ where: eq(receipts.id, receiptId) });
  if (!existing) return "missing";
  if (isFinal(existing.status)) return "final";
  const claimed = await claimReceipt(env.DB, receiptId, now);
  if (!claimed) return "busy";
  let result: Receipt;
  try {
    result = await transmitReceipt(env, claimed, await archivedXml(env, claimed), { delays: [0] });
  } finally {
    await releaseClaim(env.DB, receiptId);
  }
  return isFinal(result.status) ? "final" : "pending";
}

/** The queue consumer: final receipts are acknowledged, the rest retried with back-off. */
export async function consumeOutbox(batch: MessageBatch<OutboxMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      const result = await processReceipt(env, message.body.receiptId);
      if (result === "pending" || result === "busy") message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      else message.ack();
    } catch (error) {
      console.error("outbox message failed", message.body, error);
      message.retry({ delaySeconds: backoffSeconds(message.attempts) });
    }
  }
}

/**
 * The cron sweeper: anything not final and not held (a lost queue message, a crash between
 * sending and recording) is processed again. Returns how many receipts it looked at.
 */
export async function sweepOutbox(env: Env, now = new Date()): Promise<{ looked: number; finished: number }> {
  const due = await dueReceipts(env.DB, now);
  let finished = 0;
  for (const receipt of due) {
    try {
      if ((await processReceipt(env, receipt.id, now)) === "final") finished++;
    } catch (error) {
      console.error("sweeper failed on", receipt.encf, error);
    }
  }
  return { looked: due.length, finished };
}
