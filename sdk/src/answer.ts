import type { Problem } from "./problem-error.ts";

/**
 * The answer of a call: openapi-fetch's `data`, or an error answer that is not a problem (the
 * receipt of a 503 Contingencia: signed and queued, to be printed). Problems never get here: the
 * client threw them as ProblemError, so they are left out of the type too.
 */
export function answerOf<D, E>(result: { data?: D; error?: E }): D | Exclude<E, Problem> | undefined {
  if (result.data !== undefined) return result.data;
  return result.error as Exclude<E, Problem> | undefined;
}
