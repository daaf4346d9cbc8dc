// What storage and the services refuse, as data: a closed set of kinds they answer instead of
// HTTP problems. The edge (http/errors.ts) turns each kind into its problem code and status, in
// one place; an RPC call loses an exception's class, so the objects return a refusal as a value
// (ledger/refusal.ts).
import type { RequestPart } from "./problem.ts";

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
  /** What was sent cannot be used as it is (a certificate file that does not open, or has expired). */
  "unusable",
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
  /** Which part of the request is refused, when its pointers alone do not say (a path parameter). */
  target?: RequestPart;
}

/** Thrown by storage and services; crosses RPC as data (ledger/refusal.ts). */
export class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.detail ?? refusal.kind);
    this.name = "Refused";
  }
}

export const refuse = (kind: RefusalKind, init: Omit<Refusal, "kind"> = {}) => new Refused({ kind, ...init });
