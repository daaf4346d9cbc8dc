// The outbox state machine: receipts signed on the device go up in signing order (outbox seq), one
// at a time; each is marked by the server's answer. A network failure leaves the entry pending and
// stops the run (order is kept); a refusal (DGII's rejection, or the server's 4xx) is terminal and
// shown, never retried blindly. A repeat after a lost response gets the server's first answer.
import type { Estado, OutboxEntry, PosDatabase } from "../db.ts";

export interface ServerAnswer {
  estado: Exclude<Estado, "Pendiente">;
  encf: string;
  codigoSeguridad?: string;
  fechaHoraFirma?: string;
  urlTimbre?: string | null;
  mensajes: { codigo: string | null; valor: string }[];
}

/** What one upload attempt came to, as the transport saw it. */
export type UploadResult =
  | { kind: "answer"; answer: ServerAnswer }
  /** The server refused the receipt itself (4xx problem): terminal. */
  | { kind: "refused"; status: number; detail: string; errors: { code: string; message: string }[] }
  /** The device was revoked: stop, and the caller deletes the key. */
  | { kind: "revoked" }
  /** Nothing reliable came back (offline, timeout, 5xx, lost response): try again later. */
  | { kind: "retry"; reason: string };

export type Upload = (entry: OutboxEntry) => Promise<UploadResult>;

export interface SyncProgress {
  done: number;
  total: number;
  current?: string;
}

export interface SyncReport {
  sent: number;
  rejected: number;
  pending: number;
  stoppedBy?: "retry" | "revoked";
}

/** Entries still to upload, in signing order; `sending` ones were interrupted and go again. */
export async function queued(db: PosDatabase): Promise<OutboxEntry[]> {
  return (await db.outbox.orderBy("seq").toArray()).filter((e) => e.state === "pending" || e.state === "sending");
}

export async function syncOutbox(db: PosDatabase, upload: Upload, onProgress: (p: SyncProgress) => void = () => {}): Promise<SyncReport> {
  const entries = await queued(db);
  const report: SyncReport = { sent: 0, rejected: 0, pending: entries.length };
  onProgress({ done: 0, total: entries.length });
  for (const [i, entry] of entries.entries()) {
    onProgress({ done: i, total: entries.length, current: entry.encf });
    await db.outbox.update(entry.seq!, { state: "sending", attempts: (entry.attempts ?? 0) + 1 });
    let result: UploadResult;
    try {
      result = await upload(entry);
    } catch (error) {
      result = { kind: "retry", reason: error instanceof Error ? error.message : String(error) };
    }
    switch (result.kind) {
      case "answer": {
        const rejected = result.answer.estado === "Rechazado";
        await db.transaction("rw", db.outbox, db.sales, async () => {
          await db.outbox.update(entry.seq!, { state: rejected ? "rejected" : "sent", answer: result.answer, lastError: undefined });
          await db.sales.update(entry.saleId, {
            estado: result.answer.estado,
            mensajes: result.answer.mensajes,
            ...(result.answer.urlTimbre ? { timbreUrl: result.answer.urlTimbre } : {}),
          });
        });
        if (rejected) report.rejected++;
        else report.sent++;
        report.pending--;
        break;
      }
      case "refused": {
        const mensajes = result.errors.length
          ? result.errors.map((e) => ({ codigo: e.code, valor: e.message }))
          : [{ codigo: String(result.status), valor: result.detail }];
        await db.transaction("rw", db.outbox, db.sales, async () => {
          await db.outbox.update(entry.seq!, { state: "rejected", lastError: result.detail });
          await db.sales.update(entry.saleId, { estado: "Rechazado", mensajes });
        });
        report.rejected++;
        report.pending--;
        break;
      }
      case "revoked":
        await db.outbox.update(entry.seq!, { state: "pending" });
        onProgress({ done: i, total: entries.length });
        return { ...report, stoppedBy: "revoked" };
      case "retry":
        await db.transaction("rw", db.outbox, db.sales, async () => {
          await db.outbox.update(entry.seq!, { state: "pending", lastError: result.reason });
          // Signed on the device and not yet with the server: the receipt is in contingency.
          await db.sales.update(entry.saleId, { estado: "Contingencia" });
        });
        onProgress({ done: i, total: entries.length });
        return { ...report, stoppedBy: "retry" };
      default: {
        const _: never = result;
        throw new Error(`unknown upload result ${String(_)}`);
      }
    }
  }
  onProgress({ done: entries.length, total: entries.length });
  return report;
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
