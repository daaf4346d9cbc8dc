// Who may call each operation, said explicitly in /openapi.json. A route that names no security
// requirement is one anyone may call (login, pairing, DGII's receiver services, the console's
// invitations, /health) and a webhook is a request the service sends: both say `security: []`,
// so a generator and a linter know it is public, not forgotten. An operation behind a credential
// can always answer 401, so it declares one.
interface Operation {
  security?: unknown[];
  responses?: Record<string, unknown>;
}
type Items = Record<string, Record<string, unknown>>;
interface Document {
  paths?: object;
  webhooks?: object;
}

// Plain JSON: the document is built by now, so the schema is named by its component.
const UNAUTHORIZED = {
  description: "Missing, malformed, expired or revoked credentials",
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
};

function secured(operation: unknown): unknown {
  if (typeof operation !== "object" || operation === null || !("responses" in operation)) return operation;
  const op = operation as Operation;
  if (!op.security) return { ...op, security: [] };
  if (op.security.length === 0 || op.responses?.["401"]) return op;
  return { ...op, responses: { ...op.responses, 401: UNAUTHORIZED } };
}

const eachOperation = (items: Items) =>
  Object.fromEntries(
    Object.entries(items).map(([key, item]) => [
      key,
      Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, secured(operation)])),
    ]),
  );

/** `security: []` on every public operation and webhook; a 401 on every operation behind a credential. */
export function withDeclaredSecurity<D extends Document>(document: D): D {
  return {
    ...document,
    paths: eachOperation((document.paths ?? {}) as Items),
    ...(document.webhooks ? { webhooks: eachOperation(document.webhooks as Items) } : {}),
  };
}
