// The three reports a company can page through: issued e-CF (for local back-up), received e-CF
// with their acknowledgment and approval state, and the error-audit log. Each is one table of
// the issuer's month objects, read in a fixed total order and filtered by date; a page is the
// merge of every month's slice (reports.ts).

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
}

/** What one month object is asked for: bounds of the sort column, the cursor, the row count. */
export interface ReportSliceQuery {
  from?: string;
  until?: string;
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
      estado: "status",
      dgiiCodigo: "dgii_codigo",
      trackId: "track_id",
      codigoSeguridad: "security_code",
      fechaHoraFirma: "fecha_hora_firma",
      ncfModificado: "ncf_modificado",
      codigoModificacion: "codigo_modificacion",
      aprobacionComercial: "approval_status",
      creado: "created_at",
      origen: "source",
    },
    sortColumn: "issue_date",
    tieColumn: "encf",
    dateBounds: "date",
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
      aprobacionComercial: "approval_status",
      motivoRechazo: "approval_reason",
      aprobacionEnviadaEmisor: "approval_supplier_outcome",
      aprobacionEnviadaDgii: "approval_dgii_outcome",
      recibido: "created_at",
    },
    sortColumn: "issue_date",
    tieColumn: "id",
    dateBounds: "date",
  },
  errores: {
    table: "audit_log",
    columns: { id: "id", fecha: "created_at", accion: "action", codigo: "code", status: "status", detalle: "detail", actor: "actor", requestId: "request_id" },
    sortColumn: "created_at",
    tieColumn: "id",
    dateBounds: "timestamp",
  },
};
