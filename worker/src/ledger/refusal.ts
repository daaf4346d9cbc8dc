// A refusal across RPC: an object method returns it as a value (`LedgerResult`), since RPC loses
// an exception's class, and the worker side throws it again (`unwrap`).
import { Refused, type Refusal } from "../errors/refusal.ts";

/** What an object method that may refuse answers over RPC. */
export type LedgerResult<T> = { value: T } | { refused: Refusal };

/** Object side: runs a method, its refusal returned as data. Anything else throws. */
export function refusalsAsData<T>(work: () => T): LedgerResult<T> {
  try {
    return { value: work() };
  } catch (error) {
    if (error instanceof Refused) return { refused: error.refusal };
    throw error;
  }
}

/** Worker side: the value, or the refusal thrown again as Refused. */
export async function unwrap<T>(pending: Promise<LedgerResult<T>> | LedgerResult<T>): Promise<T> {
  const result = await pending;
  if ("refused" in result) throw new Refused(result.refused);
  return result.value;
}
