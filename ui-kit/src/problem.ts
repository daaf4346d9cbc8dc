// A failure put into words for the person at the screen. The API answers problem+json (RFC 9457),
// which @ecf/client throws as ProblemError; anything else (no network, a bug) is an Error.
import { ProblemError } from "@ecf/client";

/** The failure's own sentence: a problem's detail (else its title), any other error's message. */
export function problemHead(error: unknown): string {
  if (error instanceof ProblemError) return error.detail || error.title;
  return error instanceof Error ? error.message : String(error);
}

/** What a person reads of a failure: the problem's detail and each field's message, in Spanish where given. */
export function problemText(error: unknown): string {
  if (error instanceof ProblemError) {
    const fields = error.errors.map((e) => `${e.path}: ${(e as { messageEs?: string }).messageEs ?? e.message}`);
    const head = error.code === "forbidden" ? `Sin permiso: ${error.detail}` : error.detail || error.title;
    return [head, ...fields].join(" · ");
  }
  return problemHead(error);
}
