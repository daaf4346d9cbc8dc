// What suppliers sent the issuer, as the API shows it: the receiver's settings, the commercial
// approval it gives (ACECF), a purchase's 606 classification and the defaults per supplier. The
// request bodies of the classification live with it (receiving/purchase-classification.ts).
import { z } from "@hono/zod-openapi";
import { ESTADOS_DGII } from "../../ledger/month/estado-dgii.ts";
import { APPROVAL_ESTADOS } from "../../ledger/month/estado.ts";

export const ReceiverSettings = z
  .object({
    requireAuthentication: z
      .boolean()
      .openapi({ description: "Demand a token from /fe/autenticacion on recepción and aprobación comercial" }),
  })
  .openapi("ReceiverSettings");

export const ApprovalBody = z
  .object({
    estado: z.enum(APPROVAL_ESTADOS).openapi({
      description: "The decision, as the ACECF's Estado: Aceptado (1) or Rechazado (2)",
      example: "Aceptado",
    }),
    motivo: z
      .string()
      .trim()
      .min(1)
      .max(250)
      .optional()
      .openapi({ description: "DetalleMotivoRechazo: required when rejecting" }),
  })
  .refine((b) => b.estado === "Aceptado" || b.motivo !== undefined, {
    message: "motivo is required to reject",
    path: ["motivo"],
  })
  .openapi("CommercialApproval");

export const Delivery = z.object({ outcome: z.enum(["sent", "failed", "skipped"]), detail: z.string() });

export const ApprovalResult = z
  .object({
    id: z.string(),
    encf: z.string(),
    estado: z.enum(APPROVAL_ESTADOS),
    supplier: Delivery,
    dgii: Delivery,
  })
  .openapi("ApprovalResult");

export const PurchaseIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, example: "2026-05.0b7c…" }),
});

const SOURCES = ["purchase", "supplier", "document", "rule"] as const;

/** What the 606 reports of a purchase beside the document's figures, and where each value came from. */
export const effectiveClassificationShape = {
  tipoBienesServicios: z.string().nullable(),
  fechaPago: z.string().nullable(),
  formaPago: z.string().nullable(),
  tipoRetencionIsr: z.string().nullable(),
  itbisRetenido: z.string(),
  montoRetencionRenta: z.string(),
  itbisAlCosto: z.string(),
  itbisProporcionalidad: z.string(),
  sources: z.record(z.string(), z.enum(SOURCES)).openapi({
    description:
      "Where each value comes from, by field: this purchase, the supplier's defaults, the document, or the type's rule",
  }),
};
export const EffectiveClassification = z.object(effectiveClassificationShape).openapi("EffectiveClassification");

const gapShape = {
  code: z.enum(["unclassified", "payment_date_missing", "retention_type_missing", "itbis_al_costo_exceeds"]),
  field: z.string().openapi({ description: "The field to give" }),
  message: z.string(),
};
const given = z.record(z.string(), z.string().nullable());
const gaps = z.array(z.object(gapShape));

export const ClassificationView = z
  .object({
    id: z.string(),
    encf: z.string(),
    rncEmisor: z.string(),
    tipoeCF: z.string(),
    fechaEmision: z.string(),
    classification: given.openapi({ description: "What was given for this purchase itself" }),
    effective: EffectiveClassification.openapi({ description: "What the 606 will report" }),
    missing: gaps.openapi({ description: "What still keeps it out of a complete 606" }),
    changed: z.array(z.string()).optional().openapi({
      description: "PATCH only: the fields whose effective value (what the 606 reports) this request changed",
    }),
  })
  .openapi("ClassifiedPurchase");

export const SupplierParam = z.object({
  rnc: z
    .string()
    .regex(/^(\d{9}|\d{11})$/, "expected an RNC (9 digits) or a cédula (11)")
    .openapi({ param: { name: "rnc", in: "path" }, example: "130862346" }),
});

export const SupplierDefaultsView = z
  .object({
    rncEmisor: z.string(),
    tipoBienesServicios: z.string().nullable(),
    formaPago: z.string().nullable(),
    tipoRetencionIsr: z.string().nullable(),
    itbisRetenidoPorcentaje: z.string().nullable(),
    retencionRentaPorcentaje: z.string().nullable(),
    itbisAlCostoPorcentaje: z.string().nullable(),
    source: z
      .enum(["learned", "set"])
      .openapi({ description: "learned from the last classification, or set by the issuer" }),
    updatedAt: z.string().nullable().openapi({ description: "When they were learned or set (ISO 8601)" }),
  })
  .openapi("SupplierClassificationDefaultsView");

export const ConfirmationOverrideBody = z
  .object({
    motivo: z
      .string()
      .trim()
      .min(3)
      .max(500)
      .openapi({ description: "Why the purchase counts although DGII does not confirm it (audited)" }),
  })
  .openapi("PurchaseConfirmationOverride");

export const PurchaseConfirmation = z
  .object({
    id: z.string(),
    encf: z.string(),
    rncEmisor: z.string(),
    estadoDgii: z.enum(ESTADOS_DGII),
    confirmada: z.boolean(),
    confirmacionManual: z.string().nullable(),
  })
  .openapi("PurchaseConfirmation");
