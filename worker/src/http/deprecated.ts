import type { z } from "@hono/zod-openapi";

/** The version whose names and values the deprecated aliases keep, and the one that drops them. */
export const ALIASES_SINCE = "1.8.0";
export const ALIASES_REMOVED_IN = "1.9.0";

/**
 * A field or value of API 1.7's vocabulary, still sent (or accepted) for one minor version beside
 * what replaced it: `deprecated: true` in the document, and the replacement named.
 */
export const deprecated = <T extends z.ZodType>(schema: T, replacement: string) =>
  schema.openapi({ deprecated: true, description: `Deprecated since ${ALIASES_SINCE} (removed in ${ALIASES_REMOVED_IN}): use ${replacement}.` });
