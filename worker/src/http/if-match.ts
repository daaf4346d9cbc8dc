// Optimistic concurrency for catalogue rows: a change names the version it was made from
// (If-Match: "<version>", as GET answered in ETag). The header is read here; the comparison
// happens inside the issuer object, in the same step as the write, so two edits cannot both win.
import { ApiProblem } from "../errors/problem.ts";
import { staleVersion, type Expected } from "../ledger/issuer/catalog.ts";

/** The version an If-Match header names; 428 without one, 412 when it names none we could hold. */
export function expectedVersion(header: string | undefined): Expected {
  if (header === undefined || header.trim() === "") {
    throw new ApiProblem("precondition_required", {
      detail:
        "Send If-Match with the ETag of the version you changed (from GET or the last change), so a change made meanwhile is not overwritten.",
      errors: [{ path: "/headers/If-Match", code: "required", message: "If-Match is required." }],
    });
  }
  const tags = header.split(",").map((t) => t.trim());
  if (tags.includes("*")) return "*";
  // Strong comparison (RFC 9110 §13.1.1): a weak tag never matches; several tags, the first we could hold.
  const version = tags.map((t) => /^"(\d{1,15})"$/.exec(t)?.[1]).find((v) => v !== undefined);
  if (version === undefined) throw staleVersion(header, null);
  return Number(version);
}
