// The API's error vocabulary: the closed list of problem codes, each code's status and title, and
// the problem a module throws for the client to see. Every layer may speak it; only the edge
// (http/problem.ts) writes it as an RFC 9457 problem document.
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every error the API returns has a `code` from this closed list. Clients switch on `code`; the
 * HTTP status is derived from it in one place.
 */
export const PROBLEM_CODES = [
  "bad_request",
  "malformed_json",
  "validation_failed",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "in_progress",
  "precondition_failed",
  "payload_too_large",
  "unsupported_media_type",
  "unprocessable",
  "precondition_required",
  "quota_exceeded",
  "too_many_requests",
  "dgii_unavailable",
  "internal_error",
  // The taxpayer registry's own codes, spelled as the till's contract fixed them.
  "invalid_rnc",
  "taxpayer_not_found",
  // The console's: a cookie-authenticated write without the session's CSRF token; an invitation too old.
  "csrf_failed",
  "expired",
  // An operation only a signed-in console user may call (an API key cannot mint API keys).
  "console_session_required",
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

export function statusOf(code: ProblemCode): ContentfulStatusCode {
  switch (code) {
    case "bad_request":
    case "malformed_json":
    case "validation_failed":
    case "invalid_rnc":
      return 400;
    case "unauthorized":
      return 401;
    case "forbidden":
    case "csrf_failed":
    case "console_session_required":
      return 403;
    case "not_found":
    case "taxpayer_not_found":
      return 404;
    case "method_not_allowed":
      return 405;
    case "conflict":
    case "in_progress":
      return 409;
    case "expired":
      return 410;
    case "precondition_failed":
      return 412;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "unprocessable":
      return 422;
    case "precondition_required":
      return 428;
    case "quota_exceeded":
    case "too_many_requests":
      return 429;
    case "dgii_unavailable":
      return 503;
    case "internal_error":
      return 500;
    default: {
      const unreachable: never = code;
      throw new Error(`unknown problem code ${String(unreachable)}`);
    }
  }
}

/** Each code's title: a problem document's `title`, and a thrown problem's message when it has no detail. */
export const PROBLEM_TITLES: Record<ProblemCode, string> = {
  bad_request: "Bad request",
  malformed_json: "Malformed JSON body",
  validation_failed: "The document has problems",
  unauthorized: "Authentication required",
  forbidden: "Not allowed",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  in_progress: "Still in progress",
  precondition_failed: "Changed since it was read",
  payload_too_large: "Request body too large",
  unsupported_media_type: "Unsupported media type",
  unprocessable: "Cannot be processed",
  precondition_required: "If-Match required",
  quota_exceeded: "Monthly quota exceeded",
  too_many_requests: "Too many requests",
  dgii_unavailable: "DGII unavailable",
  internal_error: "Internal error",
  invalid_rnc: "Not an RNC or cédula",
  taxpayer_not_found: "Taxpayer not in DGII's registry",
  csrf_failed: "CSRF token missing or wrong",
  expired: "Expired",
  console_session_required: "Only a console session may do this",
};

/** One problem inside `errors[]`: where (JSON pointer into the request), what, and why. */
export interface ProblemItem {
  path: string;
  code: string;
  message: string;
  [extra: string]: unknown;
}

export interface ProblemInit {
  detail?: string;
  /** The detail in Spanish; without one the problem carries its code's Spanish explanation (spanish.ts). */
  detailEs?: string;
  errors?: ProblemItem[];
  /** Extension members (RFC 9457 §3.2), e.g. `limit` for quota_exceeded. */
  extensions?: Record<string, unknown>;
  /** Seconds until trying again makes sense, sent as `Retry-After` (every 429, 503 and in_progress has one). */
  retryAfter?: number;
  /** Which part of the request a validation problem is in (its title says so); found from the paths when absent. */
  target?: RequestPart;
}

/** The parts of a request a validation problem can be in. */
export type RequestPart = "query" | "path" | "header" | "document";

/** Retry-After when the thrower did not know better: a minute, the DGII outage's polling pace. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** Thrown by any layer for the client to see; the edge's onError writes it as a problem document. */
export class ApiProblem extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly init: ProblemInit = {},
  ) {
    super(init.detail ?? PROBLEM_TITLES[code]);
    this.name = "ApiProblem";
  }
  get status(): ContentfulStatusCode {
    return statusOf(this.code);
  }
}

/** The body was not JSON: one problem, wherever it is noticed (the router's parser or a handler's). */
export function malformedJson(): ApiProblem {
  const message = "The request body is not valid JSON.";
  return new ApiProblem("malformed_json", { detail: message, errors: [{ path: "", code: "malformed_json", message }] });
}
