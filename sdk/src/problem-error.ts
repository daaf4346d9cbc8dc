import type { components } from "./generated/openapi.ts";

export type Problem = components["schemas"]["Problem"];
export type ProblemCode = Problem["code"];
/** One item of `errors[]`: `path` is a JSON pointer into the request (`/headers/…` for a header). */
export type ProblemItem = Problem["errors"][number];

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/**
 * An RFC 9457 problem answer, thrown by the client instead of being returned as openapi-fetch's
 * `error`: callers switch on `code` (a closed list) and read `errors[].path` to point at the
 * offending field. `retryAfter` is the Retry-After header in seconds (every 429, 503 and 409 in_progress has one).
 */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string;
  /** The title and the detail in Spanish: every problem carries both. */
  readonly titleEs: string;
  readonly detailEs: string;
  readonly type: string;
  readonly instance: string;
  readonly errors: ProblemItem[];
  readonly requestId: string;
  readonly retryAfter: number | undefined;
  /** The whole document, extension members (e.g. a quota's `limit`) included. */
  readonly body: Problem & Record<string, unknown>;

  constructor(status: number, body: Problem & Record<string, unknown>, retryAfter?: number) {
    super(`${status} ${body.code}: ${body.detail || body.title}`);
    this.name = "ProblemError";
    this.status = status;
    this.code = body.code;
    this.title = body.title;
    this.detail = body.detail;
    this.titleEs = body.titleEs;
    this.detailEs = body.detailEs;
    this.type = body.type;
    this.instance = body.instance;
    this.errors = body.errors ?? [];
    this.requestId = body.requestId;
    this.retryAfter = retryAfter;
    this.body = body;
  }

  /** The problem in a response whose media type is application/problem+json; undefined otherwise. The response's body is left unread. */
  static async from(response: Response): Promise<ProblemError | undefined> {
    if (!isProblem(response)) return undefined;
    try {
      return ProblemError.of(response, await response.clone().json());
    } catch {
      return undefined; // not a problem document after all: leave the response to the caller
    }
  }

  /** The problem of a response whose body was already parsed (openapi-fetch's `error`). */
  static of(response: Response, body: unknown): ProblemError | undefined {
    if (!isProblem(response) || typeof body !== "object" || body === null || typeof (body as Problem).code !== "string")
      return undefined;
    return new ProblemError(
      response.status,
      body as Problem & Record<string, unknown>,
      retryAfterSeconds(response.headers.get("Retry-After")),
    );
  }
}

function isProblem(response: Response): boolean {
  return (response.headers.get("Content-Type") ?? "").toLowerCase().startsWith(PROBLEM_MEDIA_TYPE);
}

/** Retry-After as seconds: the header is either a number of seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
