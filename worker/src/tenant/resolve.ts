import { and, eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { companies, partnerCompanies, type Company } from "../db/tables.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";

const HEADER = "X-RNC-Emisor";

/** Test keys belong to DGII's test and certification environments, live keys to production. */
export function keyKindAllows(kind: "test" | "live", environment: Company["dgiiEnvironment"]): boolean {
  return kind === "live" ? environment === "ecf" : environment === "testecf" || environment === "certecf";
}

/**
 * Resolves the issuer every query and write of this request is scoped to. A partner must name one
 * of its issuers in X-RNC-Emisor; a company may omit it or name itself. Nothing downstream ever
 * takes an issuer id from anywhere else.
 */
export const resolveTenant = createMiddleware<AppEnv>(async (c, next) => {
  const principal = c.get("principal");
  const requested = c.req.header(HEADER)?.trim() || undefined;
  // (Built only when a query is needed: a company key's company came with the key.)
  const db = () => database(c.env.DB);
  let company: Company | undefined;

  if (principal.ownerType === "partner") {
    if (!requested) {
      throw new ApiProblem("bad_request", {
        detail: `A partner's request must name the issuer in the ${HEADER} header.`,
        errors: [{ path: `/headers/${HEADER}`, code: "required", message: `${HEADER} is required for partner keys.` }],
      });
    }
    const rows = await db()
      .select({ company: companies })
      .from(companies)
      .innerJoin(
        partnerCompanies,
        and(eq(partnerCompanies.companyId, companies.id), eq(partnerCompanies.partnerId, principal.ownerId)),
      )
      .where(eq(companies.rnc, requested))
      .limit(1);
    company = rows[0]?.company;
    if (!company)
      throw new ApiProblem("forbidden", {
        detail: `Partner ${principal.ownerId} (key ${principal.keyId}) does not act for issuer ${requested}.`,
      });
  } else {
    // Read with the key by requireAuth; looked up here only when that did not run first.
    const withKey = c.get("keyCompany");
    company =
      withKey?.id === principal.ownerId
        ? withKey
        : await db().query.companies.findFirst({ where: eq(companies.id, principal.ownerId) });
    if (!company) throw new ApiProblem("forbidden", { detail: "The company behind this key no longer exists." });
    if (requested && requested !== company.rnc) {
      throw new ApiProblem("forbidden", {
        detail: `Key ${principal.keyId} belongs to issuer ${company.rnc}; it cannot act for ${requested}.`,
      });
    }
  }

  if (!company.isActive) throw new ApiProblem("forbidden", { detail: `Issuer ${company.rnc} is not active.` });
  if (!keyKindAllows(principal.kind, company.dgiiEnvironment)) {
    throw new ApiProblem("forbidden", {
      detail:
        principal.kind === "test"
          ? `A test key cannot act for issuer ${company.rnc}, which is on DGII's production environment (ecf); use a live key.`
          : `A live key cannot act for issuer ${company.rnc}, which is on DGII's ${company.dgiiEnvironment} environment; use a test key.`,
    });
  }
  c.set("tenant", company);
  await next();
});
