/** Shared path of every document builder: canonical form, structure check, compact XML. */
import type { Problem } from "../problems.ts";
import { canonicalize } from "../xml/canonical.ts";
import type { DocumentKind } from "../xml/model.ts";
import { documentToXml } from "../xml/serialize.ts";
import { checkStructure } from "../xml/structure.ts";

/** A builder was given data that would not make a schema-valid document. */
export class DocumentBuildError extends Error {
  override name = "DocumentBuildError";
  constructor(
    message: string,
    readonly problems: readonly Problem[] = [],
  ) {
    super(problems.length ? `${message}: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}` : message);
  }
}

/** Canonicalizes `document`, rejects format problems, and serializes it. */
export function buildDocumentXml(document: Record<string, unknown>, kind: DocumentKind): string {
  const { document: canonical, problems } = canonicalize(document, kind);
  const all = [...problems, ...checkStructure(canonical, kind)];
  if (all.length) throw new DocumentBuildError(`invalid ${kind} document`, all);
  return documentToXml(canonical, kind);
}

/** Reads a leaf that must be present in a parsed document. */
export function requiredText(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") throw new DocumentBuildError(`${what} is missing`);
  return value;
}

export function optionalText(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
