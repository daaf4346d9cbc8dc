// Problems across the Durable Object boundary. An RPC call loses an exception's class, so a
// ledger method answers `{ problem }` for a client mistake instead of throwing it, and the
// worker side turns it back into the ApiProblem the route would have thrown itself.
import { ApiProblem, type ProblemCode, type ProblemInit } from "../http/problem.ts";

export type Answer<T> = { value: T } | { problem: { code: ProblemCode; init: ProblemInit } };

/** Runs a ledger method: its value, or the ApiProblem it threw as data. Anything else throws. */
export function answer<T>(work: () => T): Answer<T> {
  try {
    return { value: work() };
  } catch (error) {
    if (error instanceof ApiProblem) return { problem: { code: error.code, init: error.init } };
    throw error;
  }
}

/** The worker side: the value, or the ApiProblem thrown again. */
export async function unwrap<T>(pending: Promise<Answer<T>> | Answer<T>): Promise<T> {
  const result = await pending;
  if ("problem" in result) throw new ApiProblem(result.problem.code, result.problem.init);
  return result.value;
}
