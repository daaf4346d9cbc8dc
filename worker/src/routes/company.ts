import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { drMonth } from "@ecf/shared";
import { requireAuth } from "../auth/middleware.ts";
import {
  CompanyProfile,
  CompanySettingsPatch,
  SequenceBody,
  SequenceSchema,
  TipoParam,
  UnusedNumbers,
  type Warning,
} from "../http/schemas/company.ts";
import { problemSchema, tenantRoute } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { unusedNumbers } from "../issuing/unused-numbers.ts";
import { disabledEndpointsOf } from "../webhooks/endpoints.ts";
import { issuerLedger, writeAudit } from "../ledger/client.ts";
import { requestAuditEntry } from "../audit/log.ts";
import { encfOf } from "../ledger/issuer/encf-allocation.ts";
import { unwrap } from "../ledger/refusal.ts";
import type { Sequence } from "../ledger/rows.ts";
import { forgetKeyLookups } from "../db/key-lookups.ts";
import { rangeIsLow } from "../devices/leases.ts";
import { database } from "../db/client.ts";
import { type Company, companies } from "../db/tables.ts";
import { resolveTenant } from "../tenant/resolve.ts";

const CERTIFICATE_WARNING_DAYS = 15;
/** The quota warning starts above 90 %: compared as integers (used × 10 > limit × 9), never as a float share. */
const QUOTA_WARNING_TENTHS = 9;

export function profileWarnings(company: Company, used: number, now: Date): z.infer<typeof Warning>[] {
  const warnings: z.infer<typeof Warning>[] = [];
  if (!company.certificateNotAfter) {
    warnings.push({
      code: "certificate_missing",
      message: "No signing certificate is registered; upload one with PUT /company/certificate.",
    });
  } else {
    const msLeft = Date.parse(company.certificateNotAfter) - now.getTime();
    if (msLeft <= 0)
      warnings.push({
        code: "certificate_expired",
        message: `The signing certificate expired on ${company.certificateNotAfter}.`,
      });
    else if (msLeft <= CERTIFICATE_WARNING_DAYS * 86_400_000) {
      warnings.push({
        code: "certificate_expiring",
        message: `The signing certificate expires on ${company.certificateNotAfter}.`,
      });
    }
  }
  const limit = company.invoiceLimitPerMonth;
  if (used >= limit)
    warnings.push({ code: "quota_reached", message: `The monthly limit of ${limit} receipts has been reached.` });
  else if (used * 10 > limit * QUOTA_WARNING_TENTHS)
    warnings.push({ code: "quota_near_limit", message: `${used} of ${limit} receipts used this month.` });
  return warnings;
}

function sequenceView(row: Sequence): z.infer<typeof SequenceSchema> {
  const exhausted = row.nextNumber > row.rangeTo;
  return {
    tipoeCF: row.tipoeCF as z.infer<typeof SequenceSchema>["tipoeCF"],
    rangeFrom: row.rangeFrom,
    rangeTo: row.rangeTo,
    nextNumber: row.nextNumber,
    nextEncf: exhausted ? null : encfOf(row.tipoeCF, row.nextNumber),
    remaining: exhausted ? 0 : row.rangeTo - row.nextNumber + 1,
    expiresOn: row.expiresOn,
  };
}

/** Registers (or widens) an authorised range. Numbers already used are never handed out again. */
export async function registerSequence(
  env: Env,
  companyId: string,
  tipoeCF: string,
  body: z.infer<typeof SequenceBody>,
) {
  return sequenceView(await unwrap(issuerLedger(env, companyId).numbering().putSequence(tipoeCF, body)));
}

/** GET /company/me's answer: the issuer, this month's use and what to act on. */
async function profileOf(env: Env, company: Company): Promise<z.infer<typeof CompanyProfile>> {
  const now = new Date();
  const ledger = issuerLedger(env, company.id);
  const [used, ranges] = await Promise.all([
    ledger.numbering().invoicesIn(drMonth(now)),
    ledger.numbering().sequences(),
  ]);
  return {
    id: company.id,
    name: company.legalName,
    registryNumber: company.rnc,
    isActive: company.isActive,
    dgiiServer: company.dgiiEnvironment,
    totalsPolicy: company.totalsPolicy,
    creditoFiscalApproval: company.creditoFiscalApproval,
    creditoFiscalE32: company.creditoFiscalE32,
    invoicesCountCurrentMonth: used,
    invoiceLimitPerMonth: company.invoiceLimitPerMonth,
    signatureName: company.certificateFileName ?? null,
    signatureExpirationDate: company.certificateNotAfter ?? null,
    warnings: [
      ...profileWarnings(company, used, now),
      ...ranges.filter(rangeIsLow).map((r) => ({
        code: "range_low" as const,
        message: `Only ${Math.max(0, r.rangeTo - r.nextNumber + 1)} e-NCF of type ${r.tipoeCF} are left; request a new range from DGII.`,
      })),
      ...(await disabledEndpointsOf(env, company.id)).map((e) => ({
        code: "webhook_disabled" as const,
        message: `Webhook ${e.id} (${e.url}) was disabled on ${e.disabledAt}: ${e.disabledReason ?? "deliveries failed"}. Register it again to resume.`,
      })),
    ],
  };
}

export const companyRoutes = newRouter();
companyRoutes.use("*", requireAuth, resolveTenant);
companyRoutes.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
});

companyRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/me",
    tags: ["Company"],
    summary: "The issuer's profile, usage and warnings",
    description:
      "What the caller's issuer looks like to the service: its legal name, RNC, DGII environment, totals policy, this month's receipts against its limit, its certificate's expiry, and warnings to act on (certificate missing or expiring, quota near its limit, a disabled webhook).",
    responses: {
      200: { description: "Profile", content: { "application/json": { schema: CompanyProfile } } },
    },
  }),
  async (c) => c.json(await profileOf(c.env, c.get("tenant")), 200),
);

companyRoutes.openapi(
  tenantRoute({
    method: "patch",
    path: "/me",
    tags: ["Company"],
    summary: "Change the issuer's own settings (totals policy, crédito fiscal requests)",
    description:
      "What the issuer decides for itself: `totalsPolicy`, what a total beyond DGII's tolerance is (strict: refused; dgii: issued with a warning); `creditoFiscalApproval`, whether a buyer's crédito fiscal request is issued at once or waits for an owner's or accountant's approval; `creditoFiscalE32`, whether the E32 it replaces is left or voided by a credit note. Only the fields sent change; each change is written in the audit log. Applies to the next request; answers the profile as GET /company/me. In the console, owners only. The legal data, environment and limit are the administrator's.",
    request: { body: { required: true, content: { "application/json": { schema: CompanySettingsPatch } } } },
    responses: {
      200: { description: "Profile", content: { "application/json": { schema: CompanyProfile } } },
      400: problemSchema("An unknown policy or a field the issuer cannot change"),
    },
  }),
  async (c) => {
    const patch = c.req.valid("json");
    const company = await updateSettings(c.env, c.get("tenant"), patch);
    const changed = Object.entries(patch).filter(([, value]) => value !== undefined);
    if (changed.length > 0) {
      const detail = changed.map(([name, value]) => `${name}=${value}`).join(", ");
      await writeAudit(c.env, company.id, requestAuditEntry(c, { code: "settings_changed", detail }, 200));
    }
    return c.json(await profileOf(c.env, company), 200);
  },
);

/** The issuer's own settings changed (only the fields sent); the company as it is now. */
async function updateSettings(env: Env, company: Company, patch: z.infer<typeof CompanySettingsPatch>) {
  const set = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  if (Object.keys(set).length === 0) return company;
  const [row] = await database(env.DB).update(companies).set(set).where(eq(companies.id, company.id)).returning();
  // The company comes with its key's lookup: the next request must read the new settings.
  forgetKeyLookups();
  return row!;
}

companyRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/sequences",
    tags: ["Company"],
    summary: "The issuer's authorised e-NCF ranges",
    description:
      "Every e-NCF range registered for the issuer, one per type: its bounds, the next number a receipt will take, how many remain and when the range expires (FechaVencimientoSecuencia). Check it before issuing a type for the first time.",
    responses: {
      200: {
        description: "Ranges",
        content: { "application/json": { schema: z.object({ sequences: z.array(SequenceSchema) }) } },
      },
    },
  }),
  async (c) => {
    const rows = await issuerLedger(c.env, c.get("tenant").id).numbering().sequences();
    return c.json({ sequences: rows.map(sequenceView) }, 200);
  },
);

companyRoutes.openapi(
  tenantRoute({
    method: "put",
    path: "/sequences/{tipo}",
    tags: ["Company"],
    summary: "Register a DGII-authorised e-NCF range and its expiry",
    description:
      "Records the range DGII authorised for one type (from the Oficina Virtual) and its expiry; a later call may widen or renew it but never hands out a number already used (409). Issuing a type needs its range first (422 otherwise).",
    request: { params: TipoParam, body: { required: true, content: { "application/json": { schema: SequenceBody } } } },
    responses: {
      200: { description: "The range", content: { "application/json": { schema: SequenceSchema } } },
      400: problemSchema("Invalid range"),
      409: problemSchema("The range would reuse numbers"),
    },
  }),
  async (c) =>
    c.json(await registerSequence(c.env, c.get("tenant").id, c.req.valid("param").tipo, c.req.valid("json")), 200),
);

companyRoutes.openapi(
  tenantRoute({
    method: "get",
    path: "/sequences/{tipo}/unused",
    tags: ["Company"],
    summary: "Numbers handed out that will never be a receipt (to void with POST /fe/anulacion)",
    description:
      "A request that failed after its e-NCF was taken (the service stopped between numbering and recording) leaves a number no receipt will ever carry. Every such number is listed here until it is voided, already in the shape POST /fe/anulacion takes; numbers leased to a device and the unused tail of the range are not listed.",
    request: { params: TipoParam },
    responses: { 200: { description: "Ranges to void", content: { "application/json": { schema: UnusedNumbers } } } },
  }),
  async (c) => c.json({ rangos: await unusedNumbers(c.env, c.get("tenant").id, c.req.valid("param").tipo) }, 200),
);
