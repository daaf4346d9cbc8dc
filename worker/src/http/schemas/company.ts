// The issuer's own setup as the API shows it: profile and warnings, e-NCF ranges, unused numbers.
import { z } from "@hono/zod-openapi";
import { TIPOS_ECF, TOTALS_POLICIES } from "@ecf/shared";
import { MAX_SEQUENCE_NUMBER } from "../../ledger/issuer/encf-allocation.ts";
import { DgiiEnvironment } from "./common.ts";

export const Warning = z.object({
  code: z.enum([
    "certificate_expired",
    "certificate_expiring",
    "certificate_missing",
    "quota_near_limit",
    "quota_reached",
    "range_low",
    "webhook_disabled",
  ]),
  message: z.string(),
});

/** A buyer's crédito fiscal request (POST /r/{rnc}/{encf}/credito-fiscal): issued at once, or after approval. */
export const CreditoFiscalApproval = z.enum(["at_once", "approval"]).openapi({
  description:
    "A buyer's crédito fiscal request: `at_once` issues the E31 when asked, `approval` keeps it until an owner or accountant approves it (GET /credito-fiscal/requests)",
});

/** What the E31 of a crédito fiscal request does with the E32 it replaces. */
export const CreditoFiscalE32 = z.enum(["none", "credit_note"]).openapi({
  description:
    "The E32 a crédito fiscal E31 replaces: `none` leaves it (the E31's CodigoModificacion 5 references it), `credit_note` voids it with an E34 (CodigoModificacion 1) issued with the E31",
});

export const CompanyProfile = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: "Legal company name registered with DGII (RazonSocialEmisor)" }),
    registryNumber: z.string().openapi({ description: "RNC or cédula of the issuing company (RNCEmisor)" }),
    isActive: z.boolean(),
    dgiiServer: DgiiEnvironment.openapi({
      description: "DGII server the account transmits to: testecf, certecf or ecf",
    }),
    totalsPolicy: z
      .enum(TOTALS_POLICIES)
      .openapi({ description: "What a total beyond DGII's tolerance is (see the Totals-Policy header)" }),
    creditoFiscalApproval: CreditoFiscalApproval,
    creditoFiscalE32: CreditoFiscalE32,
    invoicesCountCurrentMonth: z.number().int(),
    invoiceLimitPerMonth: z.number().int(),
    signatureName: z.string().nullable().openapi({ description: "File name of the registered digital certificate" }),
    signatureExpirationDate: z
      .string()
      .nullable()
      .openapi({ description: "Expiry of the signing certificate (ISO 8601), or null without one" }),
    warnings: z.array(Warning),
  })
  .openapi("CompanyProfile");

/** What the issuer's owner changes of its own profile (the rest is the administrator's). */
export const CompanySettingsPatch = z
  .object({
    totalsPolicy: z
      .enum(TOTALS_POLICIES)
      .openapi({
        description:
          "A total beyond DGII's tolerance: `strict` refuses the e-CF, `dgii` issues it with a warning (a request may make it stricter with the Totals-Policy header, never relax it)",
      })
      .optional(),
    creditoFiscalApproval: CreditoFiscalApproval.optional(),
    creditoFiscalE32: CreditoFiscalE32.optional(),
  })
  .strict()
  .openapi("CompanySettingsPatch");

export const SequenceSchema = z
  .object({
    tipoeCF: z.enum(TIPOS_ECF),
    rangeFrom: z.number().int(),
    rangeTo: z.number().int(),
    nextNumber: z.number().int(),
    nextEncf: z.string().nullable().openapi({ description: "The e-NCF the next receipt gets, or null when exhausted" }),
    remaining: z.number().int(),
    expiresOn: z.string().openapi({ description: "FechaVencimientoSecuencia, yyyy-MM-dd" }),
  })
  .openapi("Sequence");

export const SequenceBody = z
  .object({
    rangeFrom: z.number().int().min(1).max(MAX_SEQUENCE_NUMBER),
    rangeTo: z.number().int().min(1).max(MAX_SEQUENCE_NUMBER),
    expiresOn: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "expected yyyy-MM-dd")
      .refine(
        (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
        "not a calendar date",
      ),
  })
  .refine((b) => b.rangeFrom <= b.rangeTo, { message: "rangeFrom must not exceed rangeTo", path: ["rangeTo"] })
  .openapi("SequenceRange");

export const TipoParam = z.object({
  tipo: z.enum(TIPOS_ECF).openapi({ param: { name: "tipo", in: "path" }, example: "31" }),
});

export const UnusedNumbers = z
  .object({
    rangos: z.array(z.object({ tipoeCF: z.string(), desde: z.string(), hasta: z.string() })).openapi({
      description:
        "Numbers handed out that hold no receipt, are not leased to a device and were not voided: the body of POST /fe/anulacion",
    }),
  })
  .openapi("UnusedNumbers");
