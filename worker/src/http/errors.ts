import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { jsonPointer } from "@ecf/shared/problems";
import { problemOf } from "../errors/problem-of.ts";
import { malformedJson, type ProblemItem } from "../errors/problem.ts";
import { problemResponse } from "./problem.ts";

/** The single exit for every error: an RFC 9457 problem document. */
export const onError: ErrorHandler = (err, c) => {
  const problem = problemOf(err);
  if (problem) return problemResponse(c, problem.code, problem.init);
  if (err instanceof HTTPException) {
    if (err.status === 400 && /malformed json/i.test(err.message))
      return problemResponse(c, "malformed_json", malformedJson().init);
    if (err.status === 413) return problemResponse(c, "payload_too_large");
    if (err.status === 401) return problemResponse(c, "unauthorized", { detail: err.message });
    if (err.status >= 400 && err.status < 500) return problemResponse(c, "bad_request", { detail: err.message });
  }
  console.error(`[${c.get("requestId") ?? "?"}]`, err);
  return problemResponse(c, "internal_error", {
    detail: "An unexpected error occurred. Quote the request id when reporting it.",
  });
};

export const notFound: NotFoundHandler = (c) =>
  problemResponse(c, "not_found", { detail: `No route for ${c.req.method} ${new URL(c.req.url).pathname}.` });

/** Turns zod issues into `errors[]` entries whose path is a JSON pointer into the request. */
export function zodProblems(error: ZodError, prefix = ""): ProblemItem[] {
  return error.issues.map((issue) => ({
    path: prefix + jsonPointer(...issue.path.map((p) => (typeof p === "number" ? p : String(p)))),
    code: issue.code,
    message: issue.message,
  }));
}

/** The zod-openapi `defaultHook`: a failed request schema is a 400 validation problem. */
export function validationHook(result: { success: boolean; error?: ZodError; target?: string }, c: Context) {
  if (!result.success && result.error) {
    // A pointer into the body or the path parameters is plain (`/rnc`, `/tipo`); into the headers
    // or the query it says so (`/headers/Totals-Policy`, `/query/hasta`, as the reports write it).
    const prefix = result.target === "header" ? "/headers" : result.target === "query" ? "/query" : "";
    const target =
      result.target === "header" || result.target === "query"
        ? result.target
        : result.target === "param"
          ? "path"
          : "document";
    return problemResponse(c, "validation_failed", {
      target,
      detail: `The request ${result.target ?? "body"} does not match the schema.`,
      errors: zodProblems(result.error, prefix),
    });
  }
  return undefined;
}
