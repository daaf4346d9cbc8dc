// The three reports a company can page through: issued e-CF (for local back-up), received e-CF
// with their acknowledgment and approval state, and the error-audit log. Each is one table of
// the issuer's month objects, read in a fixed total order and filtered by date; a page is the
// merge of every month's slice (reports.ts).

import { ESTADO_DGII_SQL } from "./estado-dgii.ts";

export type ReportName = "encf" | "compras" | "errores";

export interface ReportSpec {
  table: string;
  /** Output name → SQL column (constants only: never built from input). */
  columns: Record<string, string>;
  sortColumn: string;
  /** Unique within the issuer: makes the order total. */
  tieColumn: string;
  /** How desde/hasta (local calendar dates) bound the sort column. */
  dateBounds: "date" | "timestamp";
  /** Query parameter → what it filters (constants only: the value is always a bound parameter). */
  filters: Partial<Record<ReportFilter, ReportFilterSpec>>;
  /**
   * A table of counts per sort-column value that answers the total without counting rows, when the
   * query filters by nothing but these columns (the filters' `column`s, present in both tables).
   */
  counts?: { table: string; sum: string; filters: readonly ReportFilter[] };
}

/** The filters a report may take, by query parameter. */
export const REPORT_FILTERS = ["rncComprador", "rncEmisor", "tipoeCF", "estado", "encfPrefix"] as const;
export type ReportFilter = (typeof REPORT_FILTERS)[number];

export type ReportFilterSpec =
  | { kind: "equals"; column: string; pattern: RegExp; hint: string }
  | { kind: "prefix"; column: string; pattern: RegExp; hint: string }
  | { kind: "estado"; hint: string };

/**
 * A receipt's state as DGII spells it, from its status and whether DGII gave it a track id (a
 * receipt recorded but not yet sent is "Contingencia" until it is; see estado.ts).
 */
export const ESTADO_SQL: Record<string, string> = {
  Aceptado: "status = 'accepted'",
  "Aceptado Condicional": "status = 'conditional'",
  Rechazado: "status = 'rejected'",
  "En Proceso": "(status = 'in_process' OR (status = 'signed' AND track_id IS NOT NULL))",
  Contingencia: "(status = 'contingency' OR (status = 'signed' AND track_id IS NULL))",
  Anulado: "status = 'voided'",
};
/** A commercial approval (ACECF) as DGII spells its Estado, from how the ledger stores it (see estado.ts). */
/** purchaseCounts (receiving/purchase-confirmation.ts) in SQL: 1 or 0, turned into a boolean by the route. */
const PURCHASE_COUNTS_COLUMN =
  "CASE WHEN dgii_status IN ('confirmed', 'conditional') OR (dgii_status <> 'rejected' AND dgii_override_reason IS NOT NULL) THEN 1 ELSE 0 END";
const APPROVAL_COLUMN = "CASE approval_status WHEN 'accepted' THEN 'Aceptado' WHEN 'rejected' THEN 'Rechazado' END";

const ESTADO_COLUMN = `CASE ${Object.entries(ESTADO_SQL)
  .map(([estado, condition]) => `WHEN ${condition} THEN '${estado}'`)
  .join(" ")} END`;

const RNC = /^(\d{9}|\d{11})$/;
const TIPO = /^(31|32|33|34|41|43|44|45|46|47)$/;
const ENCF_PREFIX = /^E\d{0,12}$/;

/** What one month object is asked for: bounds of the sort column, the cursor, the row count. */
export interface ReportSliceQuery {
  from?: string;
  until?: string;
  /** Validated filter values by query parameter (the spec says what each filters). */
  filters?: Partial<Record<ReportFilter, string>>;
  after?: [string, string | number];
  limit: number;
}

export interface ReportSlice {
  rows: Record<string, string | number | null>[];
  /** Rows of this month matching the date filters, across all pages. */
  total: number;
}

export const REPORT_SPECS: Record<ReportName, ReportSpec> = {
  encf: {
    table: "receipts",
    columns: {
      encf: "encf",
      tipoeCF: "tipo_ecf",
      fechaEmision: "issue_date",
      rncComprador: "rnc_comprador",
      razonSocialComprador: "razon_social_comprador",
      montoTotal: "monto_total",
      totalITBIS: "total_itbis",
      estado: ESTADO_COLUMN,
      dgiiCodigo: "dgii_codigo",
      trackId: "track_id",
      codigoSeguridad: "security_code",
      fechaHoraFirma: "fecha_hora_firma",
      ncfModificado: "ncf_modificado",
      codigoModificacion: "codigo_modificacion",
      aprobacionComercial: APPROVAL_COLUMN,
      createdAt: "created_at",
      source: "source",
    },
    sortColumn: "issue_date",
    tieColumn: "encf",
    dateBounds: "date",
    // Kept by triggers (month migration 0007): a month of 3,000,000 receipts is not counted per page.
    counts: { table: "receipt_day_counts", sum: "receipts", filters: ["tipoeCF"] },
    filters: {
      rncComprador: { kind: "equals", column: "rnc_comprador", pattern: RNC, hint: "an RNC (9 digits) or cédula (11)" },
      tipoeCF: {
        kind: "equals",
        column: "tipo_ecf",
        pattern: TIPO,
        hint: "one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47",
      },
      estado: { kind: "estado", hint: `one of ${Object.keys(ESTADO_SQL).join(", ")}` },
      encfPrefix: {
        kind: "prefix",
        column: "encf",
        pattern: ENCF_PREFIX,
        hint: "the start of an e-NCF, e.g. E31 or E3100000001",
      },
    },
  },
  compras: {
    table: "purchases",
    columns: {
      id: "id",
      rncEmisor: "rnc_emisor",
      razonSocialEmisor: "razon_social_emisor",
      encf: "encf",
      tipoeCF: "tipo_ecf",
      fechaEmision: "issue_date",
      montoTotal: "monto_total",
      totalITBIS: "total_itbis",
      arecfEstado: "arecf_estado",
      fechaHoraAcuseRecibo: "fecha_hora_acuse_recibo",
      aprobacionComercial: APPROVAL_COLUMN,
      motivoRechazo: "approval_reason",
      approvalSupplierOutcome: "approval_supplier_outcome",
      approvalDgiiOutcome: "approval_dgii_outcome",
      receivedAt: "created_at",
      estadoDgii: ESTADO_DGII_SQL,
      confirmada: PURCHASE_COUNTS_COLUMN,
      consultadaDgii: "dgii_checked_at",
      confirmacionManual: "dgii_override_reason",
    },
    sortColumn: "issue_date",
    tieColumn: "id",
    dateBounds: "date",
    filters: {
      rncEmisor: { kind: "equals", column: "rnc_emisor", pattern: RNC, hint: "an RNC (9 digits) or cédula (11)" },
      tipoeCF: {
        kind: "equals",
        column: "tipo_ecf",
        pattern: TIPO,
        hint: "one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47",
      },
      encfPrefix: {
        kind: "prefix",
        column: "encf",
        pattern: ENCF_PREFIX,
        hint: "the start of an e-NCF, e.g. E31 or E3100000001",
      },
    },
  },
  errores: {
    table: "audit_log",
    columns: {
      id: "id",
      createdAt: "created_at",
      action: "action",
      code: "code",
      status: "status",
      detail: "detail",
      actor: "actor",
      requestId: "request_id",
    },
    sortColumn: "created_at",
    tieColumn: "id",
    dateBounds: "timestamp",
    filters: {},
  },
};
