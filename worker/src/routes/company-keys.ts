// /company/api-keys: the company's own API keys, managed by its owner signed in to the console
// (auth/roles.ts) and never with an API key, so a leaked key cannot mint more. The keys are the
// administrator's kind of key (auth/keys.ts): POST /login takes them, revoking ends their tokens.
import { consoleSessionOnly } from "../auth/console-session.ts";
import type { KeyKind } from "../auth/keys.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../auth/keys.ts";
import type { Company } from "../db/tables.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { KeyCreated, KeyList, KeyRevoked } from "../http/schemas/admin.ts";
import { IdParam, json } from "../http/schemas/common.ts";
import { consoleSecurity } from "./console.ts";

/** A key's kind follows the issuer's DGII environment (resolveTenant refuses any other). */
const kindFor = (company: Company): KeyKind => (company.dgiiEnvironment === "ecf" ? "live" : "test");

const ownerOnly = consoleSessionOnly("API keys are created, listed and revoked by the company's owner");
const consoleProblems = {
  401: problemSchema("Not signed in to the console"),
  403: problemSchema("Not the company's owner; console_session_required with an API key; or csrf_failed"),
};

/** Mounted after companyRoutes, whose middleware authenticates /company/* and resolves the tenant. */
export const companyKeyRoutes = newRouter()
  .openapi(
    tenantRoute({
      method: "get",
      path: "/company/api-keys",
      tags: ["Company"],
      security: consoleSecurity,
      middleware: [ownerOnly] as const,
      summary: "The company's API keys (never their secrets)",
      description:
        "Every key of the current company, oldest first: its public id (the key's prefix), kind, when it was created, last logged in with, and revoked. Owners only, from a console session.",
      responses: { 200: { description: "Keys", ...json(KeyList) }, ...consoleProblems },
    }),
    async (c) => {
      const company = c.get("tenant");
      return c.json({ keys: await listApiKeys(c.env.DB, { ownerType: "company", ownerId: company.id }) }, 200);
    },
  )
  .openapi(
    tenantRoute({
      method: "post",
      path: "/company/api-keys",
      tags: ["Company"],
      security: consoleSecurity,
      middleware: [ownerOnly] as const,
      summary: "Create an API key for the company (key and secret are shown once)",
      description:
        "A key of the company's kind (live for ecf, test otherwise): the answer carries the key and its secret, stored only as hashes and never shown again. Trade them for a token with POST /login. Owners only, from a console session: an API key cannot create keys.",
      responses: { 201: { description: "Created", ...json(KeyCreated) }, ...consoleProblems },
    }),
    async (c) => {
      const company = c.get("tenant");
      return c.json(await createApiKey(c.env.DB, { ownerType: "company", ownerId: company.id }, kindFor(company)), 201);
    },
  )
  .openapi(
    tenantRoute({
      method: "post",
      path: "/company/api-keys/{id}/revoke",
      tags: ["Company"],
      security: consoleSecurity,
      middleware: [ownerOnly] as const,
      summary: "Revoke one of the company's keys; its tokens stop working within a second",
      description:
        "Its tokens are refused (401) within a second and it cannot log in again; revoking a revoked key answers its first revocation time. Another company's key is not found. Owners only, from a console session.",
      request: { params: IdParam },
      responses: {
        200: { description: "Revoked", ...json(KeyRevoked) },
        404: problemSchema("No such key of this company"),
        ...consoleProblems,
      },
    }),
    async (c) => {
      const owner = { ownerType: "company" as const, ownerId: c.get("tenant").id };
      return c.json(await revokeApiKey(c.env.DB, c.req.valid("param").id, owner), 200);
    },
  );
