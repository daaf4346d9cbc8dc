// What an upload of a signed receipt comes to: the contract between the HTTP client (api.ts, which
// sorts the server's answers into these results) and the outbox (sync/outbox.ts, which acts on them).
// It sits below both, so neither imports the other for it.
import type { components } from "@ecf/client";
import type { OutboxEntry } from "./db.ts";

type IssueAnswer = components["schemas"]["IssueAnswer"];

/** The part of the server's answer to an upload (IssueAnswer) that the till keeps. */
export type ServerAnswer = Pick<IssueAnswer, "estado" | "encf" | "mensajes"> &
  Partial<Pick<IssueAnswer, "codigoSeguridad" | "fechaHoraFirma" | "urlTimbre">>;

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

/**
 * One request for consecutive entries: a result per entry, in order (a shorter list leaves the
 * rest to be tried again). The entries of one batch share the pairing that signed them.
 */
export type UploadBatch = (entries: OutboxEntry[]) => Promise<UploadResult[]>;

/** A single-receipt upload used as a batch: one request per entry, stopping where one must wait. */
export function oneAtATime(upload: Upload): UploadBatch {
  return async (entries) => {
    const results: UploadResult[] = [];
    for (const entry of entries) {
      const result = await upload(entry).catch(
        (error: unknown): UploadResult => ({
          kind: "retry",
          reason: error instanceof Error ? error.message : String(error),
        }),
      );
      results.push(result);
      if (result.kind === "retry" || result.kind === "revoked") break;
    }
    return results;
  };
}
