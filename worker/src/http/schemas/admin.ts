// The administration API's shapes: issuers, partners, API keys, the ledger's move from D1.
import { z } from "@hono/zod-openapi";
import { TOTALS_POLICIES } from "@ecf/shared";
import { DgiiEnvironment } from "./common.ts";

const totalsPolicy = z.enum(TOTALS_POLICIES).openapi({
  description:
    "A total beyond DGII's tolerance (informe-técnico §12): `strict` refuses the e-CF (400, `total_out_of_tolerance`), `dgii` issues it with a warning in `warnings`, as DGII accepts it conditionally. A request may make it stricter for itself with the `Totals-Policy` header, never relax it.",
});

// The names of GET /company/me (the interface's) for the same facts: name, registryNumber, dgiiServer.
const profileFields = {
  name: z
    .string()
    .min(1)
    .max(150)
    .openapi({ description: "Legal company name registered with DGII (RazonSocialEmisor)" }),
  tradeName: z.string().max(150).optional(),
  address: z
    .string()
    .max(100)
    .optional()
    .openapi({ description: "DireccionEmisor: required on every e-CF the issuer signs" }),
  province: z.string().max(6).optional(),
  municipality: z.string().max(6).optional(),
};

export const CompanyInput = z
  .object({
    ...profileFields,
    registryNumber: z.string().regex(/^(\d{9}|\d{11})$/, "an RNC has 9 digits, a cédula 11"),
    dgiiServer: DgiiEnvironment.default("testecf"),
    invoiceLimitPerMonth: z.number().int().min(0).default(1000),
    totalsPolicy: totalsPolicy.default("strict"),
    isActive: z.boolean().default(true),
  })
  .openapi("CompanyInput");

// No defaults here: zod applies a default even inside .partial(), which would reset the
// environment, limit and state of an issuer whenever another field is changed.
export const CompanyPatch = z
  .object({
    ...profileFields,
    dgiiServer: DgiiEnvironment,
    invoiceLimitPerMonth: z.number().int().min(0),
    totalsPolicy,
    isActive: z.boolean(),
  })
  .partial()
  .openapi("CompanyPatch");

export const CompanyOut = z
  .object({
    id: z.string(),
    name: z.string(),
    registryNumber: z.string(),
    tradeName: z.string().nullable(),
    address: z.string().nullable().openapi({ description: "DireccionEmisor of every e-CF the issuer signs" }),
    province: z.string().nullable(),
    municipality: z.string().nullable(),
    dgiiServer: DgiiEnvironment,
    invoiceLimitPerMonth: z.number(),
    totalsPolicy,
    isActive: z.boolean(),
    signatureExpirationDate: z
      .string()
      .nullable()
      .openapi({ description: "Expiry of the registered signing certificate, or null without one" }),
  })
  .openapi("AdminCompany");

export const KeyInput = z
  .object({ ownerType: z.enum(["company", "partner"]), ownerId: z.string().min(1), kind: z.enum(["test", "live"]) })
  .openapi("KeyInput");

export const KeyCreated = z
  .object({
    id: z.string(),
    kind: z.enum(["test", "live"]),
    ownerType: z.string(),
    ownerId: z.string(),
    apiKey: z.string(),
    apiSecret: z.string(),
    note: z.string(),
  })
  .openapi("KeyCreated");

export const KeyOut = z
  .object({
    id: z.string(),
    kind: z.string(),
    ownerType: z.string(),
    ownerId: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .openapi("ApiKey");

export const PartnerOut = z
  .object({ id: z.string(), name: z.string(), companyIds: z.array(z.string()) })
  .openapi("AdminPartner");

export const LedgerImportOut = z
  .object({
    companyId: z.string(),
    sequences: z.number().int(),
    leases: z.number().int(),
    idempotencyKeys: z.number().int(),
    receipts: z.number().int(),
    purchases: z.number().int(),
    auditEntries: z.number().int(),
    months: z.array(z.string()),
  })
  .openapi("LedgerImport");

export const CompanyQuery = z.object({
  registryNumber: z.string().optional().openapi({ description: "Only the issuer with this RNC or cédula" }),
});
export const CompanyList = z.object({ companies: z.array(CompanyOut) }).openapi("AdminCompanyList");
export const PartnerInput = z.object({ name: z.string().min(1).max(150) }).openapi("PartnerInput");
export const PartnerCreated = z.object({ id: z.string(), name: z.string() }).openapi("PartnerCreated");
export const PartnerQuery = z.object({
  name: z.string().optional().openapi({ description: "Only partners with exactly this name" }),
});
export const PartnerList = z.object({ partners: z.array(PartnerOut) }).openapi("AdminPartnerList");
export const PartnerLinkInput = z.object({ companyId: z.string().min(1) }).openapi("PartnerLinkInput");
export const PartnerLink = z.object({ partnerId: z.string(), companyId: z.string() }).openapi("PartnerLink");
export const KeyQuery = z.object({
  ownerId: z.string().optional().openapi({ description: "Only the keys of this issuer or partner" }),
});
export const KeyList = z.object({ keys: z.array(KeyOut) }).openapi("ApiKeyList");
export const KeyRevoked = z.object({ id: z.string(), revokedAt: z.string() }).openapi("ApiKeyRevoked");
