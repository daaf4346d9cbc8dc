// A month in a query or path, written either way the service's documents use: DGII's AAAAMM
// (the 606/607/608 files) or AAAA-MM (ISO, the ledger and archive keys). One parser for both.
import { drMonth } from "@ecf/shared";
import { refuse } from "../errors/refusal.ts";

/** AAAAMM or AAAA-MM → yyyy-MM, or undefined when the text is neither. */
export function parseMonth(text: string): string | undefined {
  const m = /^(\d{4})-?(0[1-9]|1[0-2])$/.exec(text);
  return m ? `${m[1]}-${m[2]}` : undefined;
}

/**
 * The month a request names at `pointer` (/query/period, or /period for a path parameter), as yyyy-MM: a 400 when it is not
 * a month, a 422 when it has not begun yet in Santo Domingo (nothing can be in it: an empty file
 * would read as "nothing happened").
 */
export function requestedMonth(text: string | undefined, pointer: string, now: Date): string {
  const month = text === undefined ? undefined : parseMonth(text.trim());
  if (!month) {
    throw refuse("invalid", {
      target: pointer.startsWith("/query/") ? "query" : "path",
      detail: "The month must be written AAAAMM or AAAA-MM.",
      errors: [{ path: pointer, code: "invalid_period", message: "Expected a month such as 202605 or 2026-05." }],
    });
  }
  const current = drMonth(now);
  if (month > current) {
    throw refuse("not_allowed", {
      detail: `${month} has not begun yet (it is ${current} in Santo Domingo).`,
      errors: [{ path: pointer, code: "future_period", message: `${month} is after the current month, ${current}.` }],
    });
  }
  return month;
}
