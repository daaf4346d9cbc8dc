// The response writer: an ApiProblem (or a code with its details) as an RFC 9457 problem document.
import type { Context } from "hono";
import {
  DEFAULT_RETRY_AFTER_SECONDS,
  PROBLEM_TITLES,
  type ProblemCode,
  type ProblemInit,
  type ProblemItem,
  type RequestPart,
  statusOf,
} from "../errors/problem.ts";
import { PROBLEM_DETAILS_ES, PROBLEM_TITLES_ES, VALIDATION_TITLES_ES } from "../errors/spanish.ts";

const VALIDATION_TITLES: Record<RequestPart, string> = {
  query: "The query has problems",
  path: "The URL path has problems",
  header: "A header has problems",
  document: "The document has problems",
};

/** The request part all of `errors` point into: query and headers say so in their pointers. */
function partOf(errors: readonly ProblemItem[]): RequestPart {
  if (errors.length && errors.every((e) => e.path.startsWith("/query/"))) return "query";
  if (errors.length && errors.every((e) => e.path.startsWith("/headers/"))) return "header";
  return "document";
}

function titleOf(code: ProblemCode, init: ProblemInit): string {
  return code === "validation_failed"
    ? VALIDATION_TITLES[init.target ?? partOf(init.errors ?? [])]
    : PROBLEM_TITLES[code];
}

function spanishTitleOf(code: ProblemCode, init: ProblemInit): string {
  return code === "validation_failed"
    ? VALIDATION_TITLES_ES[init.target ?? partOf(init.errors ?? [])]
    : PROBLEM_TITLES_ES[code];
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  titleEs: string;
  detailEs: string;
  code: ProblemCode;
  requestId: string;
  instance: string;
  errors: ProblemItem[];
  [extension: string]: unknown;
}

export function problemBody(
  code: ProblemCode,
  requestId: string,
  instance: string,
  init: ProblemInit = {},
): ProblemBody {
  return {
    ...init.extensions,
    type: `https://ecf-edge.dev/problems/${code.replace(/_/g, "-")}`,
    title: titleOf(code, init),
    status: statusOf(code),
    detail: init.detail ?? titleOf(code, init),
    // Every problem speaks Spanish too: the thrower's own words, else what the code means.
    titleEs: spanishTitleOf(code, init),
    detailEs: init.detailEs ?? PROBLEM_DETAILS_ES[code],
    code,
    requestId,
    instance,
    errors: init.errors ?? [],
  };
}

/** Answers with a problem document; built with c.json so headers set earlier survive. */
export function problemResponse(c: Context, code: ProblemCode, init: ProblemInit = {}): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "unknown";
  const body = problemBody(code, requestId, new URL(c.req.url).pathname, init);
  c.set("problem", { code, detail: body.detail });
  const status = statusOf(code);
  const headers: Record<string, string> = { "Content-Type": "application/problem+json" };
  if (status === 429 || status === 503 || code === "in_progress")
    headers["Retry-After"] = String(Math.max(1, Math.ceil(init.retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS)));
  return c.json(body, status, headers);
}
