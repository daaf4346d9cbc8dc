import { eq } from "drizzle-orm";
import { requireAdmin } from "../auth/admin.ts";
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from "../auth/keys.ts";
import { forgetKeyLookups } from "../db/key-lookups.ts";
import { database } from "../db/client.ts";
import { type Company, companies, partnerCompanies, partners } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { adminRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { importIssuerFromD1 } from "../ledger/import-d1.ts";
import { registerSequence } from "./company.ts";
import {
  CompanyInput,
  CompanyList,
  CompanyOut,
  CompanyPatch,
  CompanyQuery,
  KeyCreated,
  KeyInput,
  KeyList,
  KeyQuery,
  KeyRevoked,
  LedgerImportOut,
  PartnerCreated,
  PartnerInput,
  PartnerLink,
  PartnerLinkInput,
  PartnerList,
  PartnerQuery,
} from "../http/schemas/admin.ts";
import { IdParam, json } from "../http/schemas/common.ts";
import { SequenceBody, SequenceSchema, TipoParam } from "../http/schemas/company.ts";

const companyOut = (row: typeof companies.$inferSelect) => ({
  id: row.id,
  name: row.legalName,
  registryNumber: row.rnc,
  tradeName: row.tradeName ?? null,
  address: row.address ?? null,
  province: row.province ?? null,
  municipality: row.municipality ?? null,
  dgiiServer: row.dgiiEnvironment,
  invoiceLimitPerMonth: row.invoiceLimitPerMonth,
  totalsPolicy: row.totalsPolicy,
  isActive: row.isActive,
  signatureExpirationDate: row.certificateNotAfter ?? null,
});

/** The columns of an issuer's row from the API's names (those of GET /company/me). */
function companyColumns<T extends { name?: string; registryNumber?: string; dgiiServer?: Company["dgiiEnvironment"] }>(
  input: T,
) {
  const { name, registryNumber, dgiiServer, ...rest } = input;
  return {
    ...rest,
    ...(name !== undefined && { legalName: name }),
    ...(registryNumber !== undefined && { rnc: registryNumber }),
    ...(dgiiServer !== undefined && { dgiiEnvironment: dgiiServer }),
  };
}

export async function findCompany(d1: D1Database, id: string) {
  const company = await database(d1).query.companies.findFirst({ where: eq(companies.id, id) });
  if (!company) throw new ApiProblem("not_found", { detail: `No company with id ${id}.` });
  return company;
}

export const adminRoutes = newRouter();
adminRoutes.use("*", requireAdmin);
// Whatever an administrator changed (a key, an issuer, a partner's issuers) is read afresh.
adminRoutes.use("*", async (c, next) => {
  try {
    await next();
  } finally {
    if (c.req.method !== "GET") forgetKeyLookups();
  }
});
adminRoutes.openAPIRegistry.registerComponent("securitySchemes", "adminAuth", {
  type: "http",
  scheme: "bearer",
  description: "ADMIN_SECRET",
});

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/companies",
    tags: ["Administration"],
    summary: "Create an issuer",
    description:
      "Registers a taxpayer that will issue e-CF: its RNC, legal name and address (the Emisor of every e-CF it signs), its DGII environment (testecf by default), monthly limit and totals policy. Next: a key for it (POST /admin/keys), its certificate and its ranges.",
    request: { body: { required: true, ...json(CompanyInput) } },
    responses: { 201: { description: "Created", ...json(CompanyOut) }, 409: problemSchema("RNC already registered") },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const db = database(c.env.DB);
    if (await db.query.companies.findFirst({ where: eq(companies.rnc, input.registryNumber) })) {
      throw new ApiProblem("conflict", {
        detail: `Issuer ${input.registryNumber} is already registered.`,
        errors: [{ path: "/registryNumber", code: "duplicate", message: "Already registered." }],
      });
    }
    const [row] = await db
      .insert(companies)
      .values({ id: crypto.randomUUID(), ...companyColumns(input), legalName: input.name, rnc: input.registryNumber })
      .returning();
    return c.json(companyOut(row!), 201);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "get",
    path: "/companies",
    tags: ["Administration"],
    summary: "List issuers (optionally by RNC)",
    description:
      "Every registered issuer ordered by RNC, or the one with the given RNC; for the operator's tooling (the admin CLI looks issuers up by RNC this way).",
    request: { query: CompanyQuery },
    responses: { 200: { description: "Issuers", ...json(CompanyList) } },
  }),
  async (c) => {
    const { registryNumber: rnc } = c.req.valid("query");
    const rows = await database(c.env.DB).query.companies.findMany({
      where: rnc ? eq(companies.rnc, rnc) : undefined,
      orderBy: companies.rnc,
    });
    return c.json({ companies: rows.map(companyOut) }, 200);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "patch",
    path: "/companies/{id}",
    tags: ["Administration"],
    summary: "Change an issuer (environment, limit, active)",
    description:
      "A partial update: only the fields sent change (no defaults are applied), e.g. moving an issuer from certecf to ecf, raising its monthly limit, switching its totals policy or deactivating it (its tokens are then refused with 403).",
    request: { params: IdParam, body: { required: true, ...json(CompanyPatch) } },
    responses: { 200: { description: "Updated", ...json(CompanyOut) }, 404: problemSchema("Unknown issuer") },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await findCompany(c.env.DB, id);
    const patch = c.req.valid("json");
    const [row] = await database(c.env.DB)
      .update(companies)
      .set(companyColumns(patch))
      .where(eq(companies.id, id))
      .returning();
    return c.json(companyOut(row!), 200);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "put",
    path: "/companies/{id}/sequences/{tipo}",
    tags: ["Administration"],
    summary: "Register an issuer's e-NCF range",
    description:
      "The administrator's form of PUT /company/sequences/{tipo}: records the range DGII authorised for one of the issuer's types and its expiry; numbers already used are never handed out again.",
    request: {
      params: IdParam.extend(TipoParam.shape),
      body: { required: true, ...json(SequenceBody) },
    },
    responses: { 200: { description: "The range", ...json(SequenceSchema) }, 404: problemSchema("Unknown issuer") },
  }),
  async (c) => {
    const { id, tipo } = c.req.valid("param");
    await findCompany(c.env.DB, id);
    return c.json(await registerSequence(c.env, id, tipo, c.req.valid("json")), 200);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/partners",
    tags: ["Administration"],
    summary: "Create a partner (software house)",
    description:
      "A partner is a software house or ERP vendor that acts for several issuers with one key: create it, link the issuers it serves (POST /admin/partners/{id}/companies) and give it a key; its calls name the issuer in X-RNC-Emisor.",
    request: { body: { required: true, ...json(PartnerInput) } },
    responses: { 201: { description: "Created", ...json(PartnerCreated) } },
  }),
  async (c) => {
    const { name } = c.req.valid("json");
    const [row] = await database(c.env.DB).insert(partners).values({ id: crypto.randomUUID(), name }).returning();
    return c.json({ id: row!.id, name: row!.name }, 201);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "get",
    path: "/partners",
    tags: ["Administration"],
    summary: "List partners (optionally by exact name) and the issuers each serves",
    description:
      "Every partner in creation order, or those with exactly the given name, each with the ids of the issuers it may act for.",
    request: { query: PartnerQuery },
    responses: { 200: { description: "Partners", ...json(PartnerList) } },
  }),
  async (c) => {
    const { name } = c.req.valid("query");
    const db = database(c.env.DB);
    const rows = await db.query.partners.findMany({
      where: name ? eq(partners.name, name) : undefined,
      orderBy: [partners.createdAt, partners.id],
    });
    const links = await db
      .select({ partnerId: partnerCompanies.partnerId, companyId: partnerCompanies.companyId })
      .from(partnerCompanies)
      .innerJoin(partners, eq(partners.id, partnerCompanies.partnerId))
      .where(name ? eq(partners.name, name) : undefined);
    return c.json(
      {
        partners: rows.map((r) => ({
          id: r.id,
          name: r.name,
          companyIds: links.filter((l) => l.partnerId === r.id).map((l) => l.companyId),
        })),
      },
      200,
    );
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/partners/{id}/companies",
    tags: ["Administration"],
    summary: "Let a partner act for an issuer",
    description:
      "Links an issuer to a partner, so the partner's tokens may act for it with X-RNC-Emisor; linking twice changes nothing.",
    request: { params: IdParam, body: { required: true, ...json(PartnerLinkInput) } },
    responses: {
      200: { description: "Linked", ...json(PartnerLink) },
      404: problemSchema("Unknown partner or issuer"),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const { companyId } = c.req.valid("json");
    const db = database(c.env.DB);
    if (!(await db.query.partners.findFirst({ where: eq(partners.id, id) })))
      throw new ApiProblem("not_found", { detail: `No partner with id ${id}.` });
    await findCompany(c.env.DB, companyId);
    await db.insert(partnerCompanies).values({ partnerId: id, companyId }).onConflictDoNothing();
    return c.json({ partnerId: id, companyId }, 200);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/keys",
    tags: ["Administration"],
    summary: "Create an API key (key and secret are shown once)",
    description:
      "A key for an issuer or a partner, `test` (testecf and certecf) or `live` (ecf): the answer carries the key and its secret, which are stored only as hashes and never shown again. Trade them for a token with POST /login.",
    request: { body: { required: true, ...json(KeyInput) } },
    responses: { 201: { description: "Created", ...json(KeyCreated) }, 404: problemSchema("Unknown owner") },
  }),
  async (c) => {
    const { kind, ...owner } = c.req.valid("json");
    return c.json(await createApiKey(c.env.DB, owner, kind), 201);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "get",
    path: "/keys",
    tags: ["Administration"],
    summary: "List API keys (never their secrets)",
    description:
      "Every key, or the keys of one owner, with when each was created, last used and revoked; secrets and key material are never returned.",
    request: { query: KeyQuery },
    responses: { 200: { description: "Keys", ...json(KeyList) } },
  }),
  async (c) => {
    const { ownerId } = c.req.valid("query");
    return c.json({ keys: await listApiKeys(c.env.DB, { ownerId }) }, 200);
  },
);

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/keys/{id}/revoke",
    tags: ["Administration"],
    summary: "Revoke a key; its tokens stop working within a second",
    description:
      "Marks the key revoked: its tokens are refused (401) within a second (each isolate reuses a key's lookup for up to a second) and it cannot log in again. Revoking a revoked key answers its first revocation time.",
    request: { params: IdParam },
    responses: { 200: { description: "Revoked", ...json(KeyRevoked) }, 404: problemSchema("Unknown key") },
  }),
  async (c) => c.json(await revokeApiKey(c.env.DB, c.req.valid("param").id), 200),
);

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/keys/{id}/rotate",
    tags: ["Administration"],
    summary: "Replace a key: a new key and secret for the same owner; the old one is revoked",
    description:
      "Key rotation in one call: a new key of the same kind for the same owner is created (shown once) and the old key is revoked; deploy the new secret before calling it.",
    request: { params: IdParam },
    responses: { 201: { description: "The new key", ...json(KeyCreated) }, 404: problemSchema("Unknown key") },
  }),
  async (c) => c.json(await rotateApiKey(c.env.DB, c.req.valid("param").id), 201),
);

adminRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/companies/{id}/ledger/migrate",
    tags: ["Administration"],
    summary: "Move an issuer's ledger from the D1 tables of API 1.7 into its Durable Objects (idempotent)",
    description:
      "Every row is copied only if absent, so a second run changes nothing. Receipts still pending in D1 are due at once in their month object, whose alarm finishes them. `npm run admin -- ledger:migrate` runs it for every issuer.",
    request: { params: IdParam },
    responses: {
      200: { description: "What the D1 tables held for the issuer", ...json(LedgerImportOut) },
      404: problemSchema("Unknown issuer"),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await findCompany(c.env.DB, id);
    return c.json(await importIssuerFromD1(c.env, id), 200);
  },
);
