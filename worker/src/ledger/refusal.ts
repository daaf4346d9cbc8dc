// What storage refuses, as data: a closed set of kinds the ledger answers instead of throwing HTTP
// problems. An RPC call loses an exception's class, so an object method returns a refusal as a
// value (`LedgerResult`) and the worker side throws it again as `LedgerRefused`; the edge
// (http/errors.ts) turns each kind into its problem code and status, in one place.
export const REFUSAL_KINDS = [
  /** The request names something malformed (a field's format). */
  "invalid",
  /** No such thing. */
  "not_found",
  /** It clashes with what is stored (a number used, a code taken, a key reused). */
  "conflict",
  /** The row is not at the version the request's If-Match named. */
  "stale",
  /** Another request holding the same Idempotency-Key has not finished. */
  "in_progress",
  /** Well-formed, but the stored state does not allow it (no range, range expired or exhausted). */
  "not_allowed",
  /** The issuer's monthly quota is used up. */
  "quota_exceeded",
] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** One item of a refusal: where (a JSON pointer into the request), a stable code, why. */
export interface RefusalItem {
  path: string;
  code: string;
  message: string;
  [extra: string]: unknown;
}

export interface Refusal {
  kind: RefusalKind;
  detail?: string;
  errors?: RefusalItem[];
  /** Facts a client acts on (e.g. the quota's `limit` and `month`). */
  extensions?: Record<string, unknown>;
  /** Seconds until trying again makes sense. */
  retryAfter?: number;
}

/** Thrown by storage code; crosses RPC as data (see `refusalsAsData`). */
export class LedgerRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.detail ?? refusal.kind);
    this.name = "LedgerRefused";
  }
}

export const refuse = (kind: RefusalKind, init: Omit<Refusal, "kind"> = {}) => new LedgerRefused({ kind, ...init });

/** What an object method that may refuse answers over RPC. */
export type LedgerResult<T> = { value: T } | { refused: Refusal };

/** Object side: runs a method, its refusal returned as data. Anything else throws. */
export function refusalsAsData<T>(work: () => T): LedgerResult<T> {
  try {
    return { value: work() };
  } catch (error) {
    if (error instanceof LedgerRefused) return { refused: error.refusal };
    throw error;
  }
}

/** Worker side: the value, or the refusal thrown again as LedgerRefused. */
export async function unwrap<T>(pending: Promise<LedgerResult<T>> | LedgerResult<T>): Promise<T> {
  const result = await pending;
  if ("refused" in result) throw new LedgerRefused(result.refused);
  return result.value;
}
