// The reports as the API shows them: the paged reports' query and rows (issued e-CF, purchases,
// the error log) and DGII's monthly formats 606, 607 and 608 as JSON.
import { z } from "@hono/zod-openapi";
import { ESTADOS_DGII } from "../../ledger/month/estado-dgii.ts";
import { APPROVAL_ESTADOS, ESTADOS } from "../../ledger/month/estado.ts";
import { COLUMNS_606 } from "../../reports/dgii-606.ts";
import { COLUMNS_607, PAYMENT_COLUMNS } from "../../reports/dgii-607.ts";
import { COLUMNS_608 } from "../../reports/dgii-608.ts";
import { MAX_PAGE_SIZE } from "../../reports/paging.ts";
import type { ReportName } from "../../reports/reports.ts";
import { ESTADO_SQL } from "../../ledger/month/report-specs.ts";
import { EffectiveClassification } from "./purchases.ts";

// Loose on purpose: readReportQuery validates and reports each problem with a /query/... pointer.
export const ReportQuerySchema = z.object({
  Desde: z
    .string()
    .optional()
    .openapi({ description: "From this day, inclusive: yyyy-MM-dd or dd-MM-yyyy", example: "2026-04-01" }),
  Hasta: z
    .string()
    .optional()
    .openapi({ description: "To this day, inclusive: yyyy-MM-dd or dd-MM-yyyy", example: "30-04-2026" }),
  rncComprador: z.string().optional().openapi({ description: "encf only: the buyer's RNC or cédula" }),
  rncEmisor: z.string().optional().openapi({ description: "compras only: the supplier's RNC or cédula" }),
  tipoeCF: z.string().optional().openapi({ description: "encf and compras: the e-CF type (31…47)", example: "31" }),
  estado: z
    .string()
    .optional()
    .openapi({
      description: `encf only: the receipt's state as DGII spells it (${Object.keys(ESTADO_SQL).join(", ")})`,
      example: "Aceptado",
    }),
  encfPrefix: z
    .string()
    .optional()
    .openapi({ description: "encf and compras: e-NCF starting with this, e.g. E32 or E3200000001", example: "E31" }),
  pageSize: z
    .string()
    .optional()
    .openapi({ description: `Rows per page, 1 to ${MAX_PAGE_SIZE} (default 100)` }),
  cursor: z.string().optional().openapi({ description: "nextCursor of the previous page" }),
  format: z.string().optional().openapi({ description: "json (default) or csv; Accept: text/csv also selects CSV" }),
});

const text = z.string();
const maybe = z.string().nullable();
const approval = z
  .enum(APPROVAL_ESTADOS)
  .nullable()
  .openapi({ description: "The commercial approval (ACECF Estado) as DGII spells it, or null without one" });
const outcome = z.enum(["sent", "failed", "skipped"]).nullable();

/** One row of each report: DGII's names for DGII's data, English camelCase for the service's own. */
export const REPORT_ITEMS = {
  encf: z
    .object({
      encf: text,
      tipoeCF: text,
      fechaEmision: text.openapi({ description: "yyyy-MM-dd" }),
      rncComprador: maybe,
      razonSocialComprador: maybe,
      montoTotal: text,
      totalITBIS: maybe,
      estado: z.enum(ESTADOS).openapi({ description: "The receipt's state as DGII spells it" }),
      dgiiCodigo: maybe.openapi({ description: "DGII's result code as DGII gave it, or null before its verdict" }),
      trackId: maybe,
      codigoSeguridad: text,
      fechaHoraFirma: text,
      ncfModificado: maybe,
      codigoModificacion: maybe,
      aprobacionComercial: approval,
      createdAt: text.openapi({ description: "When the receipt was recorded (ISO 8601)" }),
      source: z
        .enum(["api", "device"])
        .openapi({ description: "Issued through the API or signed by a point-of-sale device" }),
    })
    .openapi("EncfReportItem"),
  compras: z
    .object({
      id: text,
      rncEmisor: text,
      razonSocialEmisor: maybe,
      encf: text,
      tipoeCF: text,
      fechaEmision: text.openapi({ description: "yyyy-MM-dd" }),
      montoTotal: text,
      totalITBIS: maybe,
      arecfEstado: text.openapi({ description: 'Our ARECF\'s Estado: "0" received, "1" not received' }),
      fechaHoraAcuseRecibo: text,
      aprobacionComercial: approval,
      motivoRechazo: maybe.openapi({ description: "DetalleMotivoRechazo of our rejection" }),
      approvalSupplierOutcome: outcome.openapi({ description: "How our ACECF reached the supplier's service" }),
      approvalDgiiOutcome: outcome.openapi({ description: "How our ACECF's copy reached DGII" }),
      receivedAt: text.openapi({ description: "When the e-CF was received (ISO 8601)" }),
      estadoDgii: z.enum(ESTADOS_DGII).openapi({
        description:
          "Whether DGII knows the e-CF (consultaestado with its security code): pending until it answers; only confirmed " +
          "(Aceptado) or conditional (Aceptado Condicional) purchases enter the 606 and can be approved, unless overridden",
      }),
      confirmada: z.boolean().openapi({
        description: "The purchase counts: DGII confirmed it, or the accountant overrode (confirmacionManual)",
      }),
      consultadaDgii: maybe.openapi({ description: "When DGII was last asked (ISO 8601)" }),
      confirmacionManual: maybe.openapi({
        description: "The accountant's reason for counting a purchase DGII does not confirm",
      }),
    })
    .openapi("ComprasReportItem"),
  errores: z
    .object({
      id: z.number().int(),
      createdAt: text.openapi({ description: "When it happened (ISO 8601)" }),
      action: text.openapi({ description: "The request, as METHOD /path", example: "POST /fe/recepcion/ecf" }),
      code: text.openapi({ description: "The problem code answered (or dgii_rejected, dgii_unavailable…)" }),
      status: z.number().int().openapi({ description: "The HTTP status answered" }),
      detail: maybe,
      actor: maybe.openapi({ description: "The API key, device, admin or alarm that acted" }),
      requestId: text,
    })
    .openapi("ErroresReportItem"),
} satisfies Record<ReportName, z.ZodType>;

export type ReportItem = z.infer<(typeof REPORT_ITEMS)[ReportName]>;

export const reportPageSchema = (name: ReportName) =>
  z
    .object({
      items: z.array(REPORT_ITEMS[name]),
      total: z.number().int().openapi({ description: "Rows matching the filters, across all pages" }),
      pageSize: z.number().int(),
      nextCursor: z.string().nullable().openapi({ description: "Pass as cursor for the next page; null on the last" }),
    })
    .openapi(`${name[0]!.toUpperCase()}${name.slice(1)}ReportPage`);

const missingCode = z.string().openapi({
  description:
    "unclassified, payment_date_missing, retention_type_missing, itbis_al_costo_exceeds, retention_date_missing, pending_dgii, figures_pending",
});

const MissingSchema = z
  .object({
    code: missingCode,
    message: z.string(),
    id: z.string().optional().openapi({ description: "The purchase id (606)" }),
    encf: z.string().optional(),
    rnc: z.string().optional().openapi({ description: "The supplier (606)" }),
    field: z.string().optional().openapi({ description: "The field to give" }),
    fixWith: z.string().optional().openapi({ description: "The request that gives it, e.g. PATCH /compras/{id}" }),
  })
  .openapi("MonthlyFormatMissing");

const formatSchema = <F extends "606" | "607" | "608", Line extends z.ZodRawShape, Extra extends z.ZodRawShape>(
  formato: F,
  columns: readonly string[],
  line: Line,
  extra: Extra,
) => {
  const fields = z
    .object(Object.fromEntries(columns.map((column) => [column, z.string()])))
    .openapi({ description: `The record's fields as written in the TXT, in order: ${columns.join(", ")}` });
  const notes = z.array(z.string()).optional().openapi({
    description:
      "How the record's figures were read where the document left something out, e.g. an additional tax without a breakdown reported as other taxes",
  });
  const lines = z.array(z.object({ ...line, fields, notes }).openapi(`Formato${formato}Linea`));
  const missing = z.array(MissingSchema);
  return z
    .object({
      format: z.literal(formato),
      rnc: z.string(),
      period: z.string().openapi({ description: "The month, AAAAMM" }),
      fileName: z.string().openapi({
        description: "The file name DGII's tool gives the TXT",
        example: `DGII_F_${formato}_131880681_202605.TXT`,
      }),
      recordCount: z.number().int().openapi({ description: "Records in the file (the header's count)" }),
      complete: z.boolean().openapi({ description: "Nothing is missing: the TXT can be filed as it is" }),
      missing: missing.openapi({ description: "What must be given before the month can be filed" }),
      warnings: z.array(z.string()).openapi({
        description:
          "What DGII's tool may object to without keeping the month from being filed (a file above its record limit)",
      }),
      lines,
      ...extra,
    })
    .openapi(`Formato${formato}`);
};

const LINE_606 = {
  source: z.enum(["purchase", "own"]).openapi({
    description: "purchase: a supplier's e-CF (id is the purchase's); own: the issuer's own E41, E43 or E47",
  }),
  id: z.string(),
  encf: z.string(),
  tipoeCF: z.string(),
  classification: EffectiveClassification,
};
const LINE_607 = { encf: z.string(), tipoeCF: z.string() };
const LINE_608 = {
  encf: z.string(),
  kind: z
    .enum(["receipt", "unused"])
    .openapi({ description: "receipt: a signed receipt voided before it was sent; unused: a number never used" }),
};
const consumerSummaryShape = {
  count: z.number().int().openapi({ description: "E32 under 250,000 accepted in the month" }),
  montoFacturado: z.string(),
  itbisFacturado: z.string(),
  impuestoSelectivoConsumo: z.string(),
  otrosImpuestosTasas: z.string(),
  montoPropinaLegal: z.string(),
  montoTotal: z.string(),
  formasPago: z
    .object(Object.fromEntries(PAYMENT_COLUMNS.map((column) => [column, z.string()])))
    .openapi({ description: "The amounts of the 607's payment-form columns 17–23" }),
};
const ConsumerSummary = z.object(consumerSummaryShape).openapi("ResumenConsumo", {
  description: "E32 under 250,000 accepted in the month: count, amounts and payment forms, for the Oficina Virtual",
});

export const PeriodQuery = z.object({
  period: z.string().optional().openapi({ description: "The month, AAAAMM or AAAA-MM (required)", example: "202605" }),
  format: z
    .string()
    .optional()
    .openapi({ description: "json (default) or txt; Accept: text/plain also selects the TXT" }),
});

const totals = z
  .record(z.string(), z.string())
  .openapi({ description: "Sums of the amount columns, by DGII's column name (a check against the books)" });
const Excluded = z.array(
  z.object({
    id: z.string(),
    encf: z.string(),
    rncEmisor: z.string(),
    reason: z.string(),
  }),
);

export const Formato606 = formatSchema("606", COLUMNS_606, LINE_606, {
  totals,
  excluded: Excluded.openapi({
    description: "Received e-CF left out of the file, and why (a commercially rejected invoice is not a purchase)",
  }),
});
export const Formato607 = formatSchema("607", COLUMNS_607, LINE_607, {
  totals,
  consumptionSummary: ConsumerSummary,
});
export const Formato608 = formatSchema("608", COLUMNS_608, LINE_608, {});
