// The outbox state machine: receipts signed on the device go up in signing order (outbox seq), in
// batches (many receipts per request); each is marked by the server's answer to it. A network
// failure leaves the entries pending and stops the run (order is kept); a refusal (DGII's
// rejection, or the server's 4xx for that receipt) is terminal and shown, never retried blindly.
// A repeat after a lost response gets the server's first answer.
import type { OutboxEntry, PosDatabase, Sale } from "../db.ts";
import type { UploadBatch, UploadResult } from "../uploads.ts";

/** How much one batch carries: the server takes up to 100 receipts in a body of at most 2 MiB. */
export const BATCH_LIMITS = { receipts: 100, bytes: 1_500_000 };

export interface SyncProgress {
  done: number;
  total: number;
  current?: string;
}

export interface SyncReport {
  sent: number;
  rejected: number;
  pending: number;
  /** Sent and answered En Proceso or Contingencia: DGII's verdict is still to come. */
  unsettled: number;
  stoppedBy?: "retry" | "revoked";
}

/** Entries still to upload, in signing order; `sending` ones were interrupted and go again. */
export async function queued(db: PosDatabase): Promise<OutboxEntry[]> {
  return (await db.outbox.orderBy("seq").toArray()).filter((e) => e.state === "pending" || e.state === "sending");
}

/** Consecutive entries cut into batches within the limits, never mixing two pairings' receipts. */
export function batches(entries: OutboxEntry[], limits = BATCH_LIMITS): OutboxEntry[][] {
  const out: OutboxEntry[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const last = out.at(-1);
    const size = entry.signedXml.length;
    if (last && last.length < limits.receipts && bytes + size <= limits.bytes && last[0]!.deviceId === entry.deviceId) {
      last.push(entry);
      bytes += size;
    } else {
      out.push([entry]);
      bytes = size;
    }
  }
  return out;
}

export async function syncOutbox(
  db: PosDatabase,
  upload: UploadBatch,
  onProgress: (p: SyncProgress) => void = () => {},
  limits = BATCH_LIMITS,
): Promise<SyncReport> {
  const entries = await queued(db);
  const total = entries.length;
  const report: SyncReport = { sent: 0, rejected: 0, pending: total, unsettled: 0 };
  let done = 0;
  onProgress({ done, total });
  for (const batch of batches(entries, limits)) {
    onProgress({ done, total, current: batch[0]!.encf });
    const results = await sendBatch(db, upload, batch);
    const { settled, stop } = settledPart(batch, results);
    // Every entry's change and its sale's, written in one transaction (two bulk writes).
    const changes: BatchChanges = { entries: [], sales: [] };
    for (const [i, entry] of batch.entries()) recordResult(entry, i < settled ? results[i]! : stop!, changes, report);
    await db.transaction("rw", db.outbox, db.sales, async () => {
      await db.outbox.bulkUpdate(changes.entries);
      await db.sales.bulkUpdate(changes.sales);
    });
    done += settled;
    if (stop) {
      onProgress({ done, total });
      return { ...report, stoppedBy: stop.kind === "revoked" ? "revoked" : "retry" };
    }
  }
  onProgress({ done: total, total });
  return report;
}

/** Marks the batch as being sent (one more attempt each) and uploads it; a throw is a result to retry. */
async function sendBatch(db: PosDatabase, upload: UploadBatch, batch: OutboxEntry[]): Promise<UploadResult[]> {
  await db.outbox.bulkUpdate(
    batch.map((entry) => ({ key: entry.seq!, changes: { state: "sending", attempts: (entry.attempts ?? 0) + 1 } })),
  );
  try {
    return await upload(batch);
  } catch (error) {
    return [{ kind: "retry", reason: error instanceof Error ? error.message : String(error) }];
  }
}

/**
 * How many of the batch's answers count: up to the first receipt that must wait; it and everything
 * after it wait too, for the reason in `stop`.
 */
function settledPart(batch: OutboxEntry[], results: UploadResult[]): { settled: number; stop?: UploadResult } {
  const waitsAt = batch.findIndex(
    (_, i) => !results[i] || results[i]!.kind === "retry" || results[i]!.kind === "revoked",
  );
  if (waitsAt === -1) return { settled: batch.length };
  return { settled: waitsAt, stop: results[waitsAt] ?? { kind: "retry", reason: "No answer for this receipt." } };
}

/** The writes one batch's results call for: each entry's new state and its sale's. */
interface BatchChanges {
  entries: { key: number; changes: Partial<OutboxEntry> }[];
  sales: { key: string; changes: Partial<Sale> }[];
}

/** What one receipt's result changes in the outbox and its sale, and in the run's counts. */
function recordResult(entry: OutboxEntry, result: UploadResult, changes: BatchChanges, report: SyncReport): void {
  const key = entry.seq!;
  switch (result.kind) {
    case "answer": {
      const rejected = result.answer.estado === "Rechazado";
      changes.entries.push({
        key,
        changes: { state: rejected ? "rejected" : "sent", answer: result.answer, lastError: undefined },
      });
      changes.sales.push({
        key: entry.saleId,
        changes: {
          estado: result.answer.estado,
          mensajes: result.answer.mensajes,
          ...(result.answer.urlTimbre ? { timbreUrl: result.answer.urlTimbre } : {}),
        },
      });
      if (rejected) report.rejected++;
      else report.sent++;
      if (result.answer.estado === "En Proceso" || result.answer.estado === "Contingencia") report.unsettled++;
      report.pending--;
      break;
    }
    case "refused": {
      const mensajes = result.errors.length
        ? result.errors.map((e) => ({ codigo: e.code, valor: e.message }))
        : [{ codigo: String(result.status), valor: result.detail }];
      changes.entries.push({ key, changes: { state: "rejected", lastError: result.detail } });
      changes.sales.push({ key: entry.saleId, changes: { estado: "Rechazado", mensajes } });
      report.rejected++;
      report.pending--;
      break;
    }
    case "revoked":
      changes.entries.push({ key, changes: { state: "pending" } });
      break;
    case "retry":
      changes.entries.push({ key, changes: { state: "pending", lastError: result.reason } });
      // Signed on the device and not yet with the server: the receipt is in contingency.
      changes.sales.push({ key: entry.saleId, changes: { estado: "Contingencia" } });
      break;
    default: {
      const _: never = result;
      throw new Error(`unknown upload result ${String(_)}`);
    }
  }
}

/**
 * Runs `work` in at most one tab at a time (Web Locks); a tab that finds the lock taken skips this
 * round instead of queueing behind it. Without Web Locks (old browsers, Node tests) it just runs.
 */
export async function underSyncLock<T>(work: () => Promise<T>, name = "ecf-pos-sync"): Promise<T | "busy"> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return work();
  return locks.request(name, { ifAvailable: true }, async (lock) => (lock ? work() : "busy"));
}

/** Resolves once no tab holds the sync lock (at once without Web Locks). */
export async function syncLockFree(name = "ecf-pos-sync"): Promise<void> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  // A shared request waits for the exclusive holder, and is released at once.
  if (locks) await locks.request(name, { mode: "shared" }, async () => {});
}
