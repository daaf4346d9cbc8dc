// `Idempotency-Key`s in the issuer object. A key is claimed by the request that numbers a receipt,
// in the numbering write, and names that receipt: a later request with the key gets the receipt's
// answer as it stands (the worker reads it from its month object), never a second receipt. Nothing
// more is written when the answer is given, so a request that dies after recording its receipt
// leaves nothing half done. The same key with a different body is a conflict.
import { and, eq, lt } from "drizzle-orm";
import { idempotencyKeys } from "./issuer-tables.ts";
import type { IssuerDb } from "./encf-allocation.ts";
import { param, preparedOnce } from "../prepared.ts";
import { refuse, type Refused } from "../../errors/refusal.ts";
import type { StoredWarning } from "./issuer-row-types.ts";

/** Idempotency keys are kept this long (a client retries within minutes, not months). */
const IDEMPOTENCY_KEY_DAYS = 30;
/** How often expired keys are deleted (a few hours late changes nothing; a delete per receipt does cost). */
const FORGET_KEYS_EVERY_MS = 3_600_000;
/** Retry-After of an in_progress answer: the first request is signing or waiting for DGII (seconds). */
export const IN_PROGRESS_RETRY_SECONDS = 2;

export interface IdempotencyRequest {
  key: string;
  /** What tells a retry of the same request from a different one with the same key. */
  requestHash: string;
  /** The request's validation warnings, part of its answer (given when it numbers). */
  warnings?: StoredWarning[];
  /** The e-NCF of an abandoned claim on the key (numbered, never recorded) this request takes over. */
  abandoned?: string;
}

/**
 * A claimed key: the receipt its request numbered (its answer is that receipt's, as it stands), or
 * an answer stored verbatim (keys moved from a 1.7 database).
 */
export type KeyHolder =
  | { encf: string; month: string; warnings: StoredWarning[] | null; claimedAt: string }
  | { stored: { status: number; response: string } };

/**
 * The refusal for a key whose request has not finished: its receipt not numbered-and-recorded yet,
 * or recorded and still being transmitted by it. Never the receipt's passing state (a till would
 * print it).
 */
export function idempotencyKeyInProgress(retryAfter = IN_PROGRESS_RETRY_SECONDS): Refused {
  return refuse("in_progress", {
    detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
    errors: [{ path: "/headers/Idempotency-Key", code: "idempotency_key_in_progress", message: "In progress." }],
    retryAfter,
  });
}

const keyQuery = preparedOnce((db: IssuerDb) =>
  db
    .select()
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, param("key")))
    .prepare(),
);
const forgetKeysBefore = preparedOnce((db: IssuerDb) =>
  db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, param("expired")))
    .prepare(),
);
const insertKey = preparedOnce((db: IssuerDb) =>
  db
    .insert(idempotencyKeys)
    .values({
      key: param("key"),
      requestHash: param("requestHash"),
      encf: param("encf"),
      month: param("month"),
      warnings: param("warnings"),
    })
    .prepare(),
);

export class IdempotencyKeys {
  /** When this instance last deleted expired keys (0: not yet). */
  private forgottenAt = 0;

  constructor(private readonly db: IssuerDb) {}

  /** Who holds a key; null when it is free. Refuses a different request with the same key. */
  holderOf({ key, requestHash }: IdempotencyRequest): KeyHolder | null {
    const row = keyQuery(this.db).get({ key });
    if (!row) return null;
    if (row.requestHash !== requestHash) {
      throw refuse("conflict", {
        detail: "This Idempotency-Key was already used with a different request body.",
        errors: [
          {
            path: "/headers/Idempotency-Key",
            code: "idempotency_key_reused",
            message: "Different request for the same key.",
          },
        ],
      });
    }
    if (row.status !== null && row.response !== null) return { stored: { status: row.status, response: row.response } };
    if (row.encf === null || row.month === null) throw idempotencyKeyInProgress();
    return {
      encf: row.encf,
      month: row.month,
      warnings: row.warnings === null ? null : (JSON.parse(row.warnings) as StoredWarning[]),
      claimedAt: row.createdAt,
    };
  }

  /** Takes a free key (checked by `holderOf` in the same write) for a receipt, and forgets expired keys (hourly). */
  claim({ key, requestHash, warnings, abandoned }: IdempotencyRequest, encf: string, month: string): void {
    const now = Date.now();
    if (now - this.forgottenAt >= FORGET_KEYS_EVERY_MS) {
      forgetKeysBefore(this.db).run({ expired: new Date(now - IDEMPOTENCY_KEY_DAYS * 86_400_000).toISOString() });
      this.forgottenAt = now;
    }
    if (abandoned) this.release(key, abandoned);
    insertKey(this.db).run({
      key,
      requestHash,
      encf,
      month,
      warnings: warnings?.length ? JSON.stringify(warnings) : null,
    });
  }

  /** Gives back a key claimed for `encf` (only that claim), so a corrected retry works. */
  release(key: string, encf: string): void {
    this.db
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.key, key), eq(idempotencyKeys.encf, encf)))
      .run();
  }
}
