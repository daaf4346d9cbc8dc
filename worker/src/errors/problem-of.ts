// The one correspondence between the two error vocabularies: each refusal kind is a problem code.
// A refusal keeps its detail, items and facts; the edge writes the problem (http/errors.ts), and
// a service that answers per item (a batch) reads it here too.
import { ApiProblem, type ProblemCode } from "./problem.ts";
import { Refused, type RefusalKind } from "./refusal.ts";

/** What each refusal (storage's or a service's) is at the edge. */
function problemCodeOf(kind: RefusalKind): ProblemCode {
  switch (kind) {
    case "invalid":
      return "validation_failed";
    case "not_found":
      return "not_found";
    case "conflict":
      return "conflict";
    case "stale":
      return "precondition_failed";
    case "in_progress":
      return "in_progress";
    case "not_allowed":
      return "unprocessable";
    case "quota_exceeded":
      return "quota_exceeded";
    case "unusable":
      return "bad_request";
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown refusal ${String(unreachable)}`);
    }
  }
}

/** The problem an error is for the client (an ApiProblem, or a refusal); undefined for a fault. */
export function problemOf(err: unknown): ApiProblem | undefined {
  if (err instanceof ApiProblem) return err;
  if (err instanceof Refused) {
    const { kind, ...init } = err.refusal;
    return new ApiProblem(problemCodeOf(kind), init);
  }
  return undefined;
}
