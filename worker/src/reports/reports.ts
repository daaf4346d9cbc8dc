// The three reports a company can page through: issued e-CF (for local back-up), received e-CF
// with their acknowledgment and approval state, and the error-audit log. Each is one table read
// in a fixed total order, scoped to the company, filtered by date.
import { encodeCursor, type ReportQuery } from "./paging.ts";
import type { CsvValue } from "./csv.ts";

export type ReportName = "encf" | "compras" | "errores";

interface ReportSpec {
  table: string;
  /** Output name → SQL column (constants only: never built from input). */
  columns: Record<string, string>;
  sortColumn: string;
  /** Unique within the company: makes the order total. */
  tieColumn: string;
  /** How desde/hasta (local calendar dates) bound the sort column. */
  dateBounds: (desde?: string, hasta?: string) => { from?: string; until?: string };
}

/** Local dates compared with a yyyy-MM-dd column: inclusive on both ends. */
const dateColumnBounds = (desde?: string, hasta?: string) => ({ from: desde, until: hasta ? `${hasta}\uffff` : undefined });

// Santo Domingo is UTC-4 all year: a local day starts at 04:00 UTC.
function dayStartUtc(isoDate: string, plusDays = 0): string {
  const t = Date.parse(`${isoDate}T04:00:00.000Z`) + plusDays * 86_400_000;
  return new Date(t).toISOString();
}
/** Local dates against a UTC timestamp column: [desde 00:00, hasta+1 00:00) in Santo Domingo time. */
const timestampBounds = (desde?: string, hasta?: string) => ({ from: desde ? dayStartUtc(desde) : undefined, until: hasta ? dayStartUtc(hasta, 1) : undefined });

export const REPORTS: Record<ReportName, ReportSpec> = {
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
    },
    sortColumn: "issue_date",
    tieColumn: "encf",
    dateBounds: dateColumnBounds,
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
    dateBounds: dateColumnBounds,
  },
  errores: {
    table: "audit_log",
    columns: { id: "id", fecha: "created_at", accion: "action", codigo: "code", status: "status", detalle: "detail", actor: "actor", requestId: "request_id" },
    sortColumn: "created_at",
    tieColumn: "id",
    dateBounds: timestampBounds,
  },
};

export interface ReportPage {
  items: Record<string, CsvValue>[];
  /** Rows matching the filters, across all pages. */
  total: number;
  pageSize: number;
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export async function readReport(d1: D1Database, name: ReportName, companyId: string, query: ReportQuery): Promise<ReportPage> {
  const spec = REPORTS[name];
  const { from, until } = spec.dateBounds(query.desde, query.hasta);
  const where = ["company_id = ?"];
  const params: (string | number)[] = [companyId];
  if (from !== undefined) {
    where.push(`${spec.sortColumn} >= ?`);
    params.push(from);
  }
  if (until !== undefined) {
    where.push(`${spec.sortColumn} < ?`);
    params.push(until);
  }
  const filter = where.join(" AND ");
  const filterParams = [...params];
  if (query.after) {
    where.push(`(${spec.sortColumn} > ? OR (${spec.sortColumn} = ? AND ${spec.tieColumn} > ?))`);
    params.push(query.after[0], query.after[0], query.after[1]);
  }
  const select = Object.entries(spec.columns)
    .map(([out, column]) => `${column} AS "${out}"`)
    .join(", ");
  const sortOut = Object.keys(spec.columns).find((k) => spec.columns[k] === spec.sortColumn)!;
  const tieOut = Object.keys(spec.columns).find((k) => spec.columns[k] === spec.tieColumn)!;
  // One row more than the page tells whether there is a next page without a second query.
  const [rows, count] = await d1.batch<Record<string, CsvValue>>([
    d1
      .prepare(`SELECT ${select} FROM ${spec.table} WHERE ${where.join(" AND ")} ORDER BY ${spec.sortColumn}, ${spec.tieColumn} LIMIT ?`)
      .bind(...params, query.pageSize + 1),
    d1.prepare(`SELECT COUNT(*) AS total FROM ${spec.table} WHERE ${filter}`).bind(...filterParams),
  ]);
  const items = rows!.results.slice(0, query.pageSize);
  const last = items[items.length - 1];
  const more = rows!.results.length > query.pageSize;
  return {
    items,
    total: Number((count!.results[0] as { total: number }).total),
    pageSize: query.pageSize,
    nextCursor: more && last ? encodeCursor(name, [String(last[sortOut]), last[tieOut] as string | number]) : null,
  };
}
