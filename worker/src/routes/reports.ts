// GET /reports/{encf,compras,errores}: tenant-scoped, date-filtered, keyset-paged, JSON or CSV.
// GET /reports/{606,607,608}: DGII's monthly formats for one month, JSON or the TXT.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireAuth } from "../auth/middleware.ts";
import type { AppEnv } from "../env.ts";
import { tenantRoute, problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { toCsv } from "../reports/csv.ts";
import { MAX_PAGE_SIZE, readReportQuery } from "../reports/paging.ts";
import { readReport, REPORTS, type ReportName } from "../reports/reports.ts";
import { ESTADO_SQL } from "../reports/specs.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import { deprecated } from "../http/deprecated.ts";
import { APPROVAL_ESTADOS, ESTADOS, RECEIPT_STATUSES } from "../issuing/estado.ts";
import { ApiProblem } from "../http/problem.ts";
import { COLUMNS_606 } from "../reports/dgii-606.ts";
import { COLUMNS_607, PAYMENT_COLUMNS } from "../reports/dgii-607.ts";
import { EffectiveClassification } from "./purchases.ts";
import { COLUMNS_608 } from "../reports/dgii-608.ts";
import { txtOf, type FormatLine, type MissingItem, type MonthlyFormat } from "../reports/dgii-txt.ts";
import { read606, read607, read608 } from "../reports/monthly-formats.ts";

// Loose on purpose: readReportQuery validates and reports each problem with a /query/... pointer.
const ReportQuerySchema = z.object({
  desde: z.string().optional().openapi({ description: "From this date, inclusive: yyyy-MM-dd or dd-MM-yyyy (also as `Desde`, DGII's name)", example: "2025-04-01" }),
  hasta: z.string().optional().openapi({ description: "To this date, inclusive: yyyy-MM-dd or dd-MM-yyyy (also as `Hasta`)", example: "30-04-2025" }),
  Desde: z.string().optional().openapi({ description: "desde, as DGII's services name it" }),
  Hasta: z.string().optional().openapi({ description: "hasta, as DGII's services name it" }),
  rncComprador: z.string().optional().openapi({ description: "encf only: the buyer's RNC or cédula" }),
  rncEmisor: z.string().optional().openapi({ description: "compras only: the supplier's RNC or cédula" }),
  tipoeCF: z.string().optional().openapi({ description: "encf and compras: the e-CF type (31…47)", example: "31" }),
  estado: z
    .string()
    .optional()
    .openapi({ description: `encf only: the receipt's state as DGII spells it (${Object.keys(ESTADO_SQL).join(", ")})`, example: "Aceptado" }),
  encfPrefix: z.string().optional().openapi({ description: "encf and compras: e-NCF starting with this, e.g. E32 or E3200000001", example: "E31" }),
  pageSize: z
    .string()
    .optional()
    .openapi({ description: `Rows per page, 1 to ${MAX_PAGE_SIZE} (default 100)` }),
  cursor: z.string().optional().openapi({ description: "nextCursor of the previous page" }),
  format: z.string().optional().openapi({ description: "json (default) or csv; Accept: text/csv also selects CSV" }),
});

const text = z.string();
const maybe = z.string().nullable();
const approval = z.enum(APPROVAL_ESTADOS).nullable().openapi({ description: "The commercial approval (ACECF Estado) as DGII spells it, or null without one" });
const outcome = z.enum(["sent", "failed", "skipped"]).nullable();

/** One row of each report: DGII's names for DGII's data, English camelCase for the service's own. */
const REPORT_ITEMS = {
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
      source: z.enum(["api", "device"]).openapi({ description: "Issued through the API or signed by a point-of-sale device" }),
      creado: deprecated(text, "`createdAt`"),
      origen: deprecated(z.enum(["api", "device"]), "`source`"),
      status: deprecated(z.enum(RECEIPT_STATUSES), "`estado` (DGII's words)"),
      approvalStatus: deprecated(z.enum(["accepted", "rejected"]).nullable(), "`aprobacionComercial` (DGII's words)"),
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
      recibido: deprecated(text, "`receivedAt`"),
      aprobacionEnviadaEmisor: deprecated(outcome, "`approvalSupplierOutcome`"),
      aprobacionEnviadaDgii: deprecated(outcome, "`approvalDgiiOutcome`"),
      approvalStatus: deprecated(z.enum(["accepted", "rejected"]).nullable(), "`aprobacionComercial` (DGII's words)"),
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
      fecha: deprecated(text, "`createdAt`"),
      accion: deprecated(text, "`action`"),
      codigo: deprecated(text, "`code`"),
      detalle: deprecated(maybe, "`detail`"),
    })
    .openapi("ErroresReportItem"),
} satisfies Record<ReportName, z.ZodType>;

const reportPageSchema = (name: ReportName) =>
  z
    .object({
      items: z.array(REPORT_ITEMS[name]),
      total: z.number().int().openapi({ description: "Rows matching the filters, across all pages" }),
      pageSize: z.number().int(),
      nextCursor: z.string().nullable().openapi({ description: "Pass as cursor for the next page; null on the last" }),
    })
    .openapi(`${name[0]!.toUpperCase()}${name.slice(1)}ReportPage`);

const SUMMARIES: Record<ReportName, string> = {
  encf: "Issued e-CF (type, e-NCF, buyer, totals, state, security code, dates), for local back-up",
  compras: "Received e-CF with their ARECF and ACECF state",
  errores: "The error-audit log",
};

const DESCRIPTIONS: Record<ReportName, string> = {
  encf: "Every receipt the issuer issued, by FechaEmision, with its state as DGII spells it and its commercial approval; filter by buyer, type, state and e-NCF prefix. For an ERP's reconciliation and a local back-up: page with `cursor` until nextCursor is null, or take it as CSV.",
  compras:
    "Every e-CF suppliers sent the issuer, by FechaEmision, with our acknowledgment (ARECF) and the commercial approval given (ACECF) and how it was delivered; filter by supplier, type and e-NCF prefix. JSON pages or CSV.",
  errores:
    "The issuer's refused requests and DGII's rejections, newest last: what was asked, the problem code, the detail and the request id to quote to support. JSON pages or CSV.",
};

async function serve(c: Context<AppEnv>, name: ReportName) {
  const query = readReportQuery(name, c.req.query(), c.req.header("Accept"));
  const page = await readReport(c.env, name, c.get("tenant").id, query);
  if (query.format === "csv") {
    const headers: Record<string, string> = { "Content-Type": "text/csv; charset=utf-8", "X-Total-Count": String(page.total) };
    if (page.nextCursor) {
      const next = new URL(c.req.url);
      next.searchParams.set("cursor", page.nextCursor);
      headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
      headers["X-Next-Cursor"] = page.nextCursor;
    }
    return c.body(toCsv(Object.keys(REPORTS[name].columns), page.items), 200, headers);
  }
  return c.json(page, 200);
}

export const reportRoutes = newRouter();
reportRoutes.use("/reports/*", requireAuth, resolveTenant);

for (const name of ["encf", "compras", "errores"] as const) {
  reportRoutes.openapi(
    tenantRoute({
      method: "get",
      path: `/reports/${name}`,
      tags: ["Reports"],
      summary: SUMMARIES[name],
      description: DESCRIPTIONS[name],
      request: { query: ReportQuerySchema },
      responses: {
        200: {
          description: "One page, in a stable order; CSV carries the next page in Link and X-Next-Cursor",
          content: { "application/json": { schema: reportPageSchema(name) }, "text/csv": { schema: z.string() } },
        },
        400: problemSchema("Invalid dates, filters, page size, cursor or format"),
      },
    }),
    // The CSV branch returns a plain body, which the typed route cannot describe.
    ((c: Context<AppEnv>) => serve(c, name)) as never,
  );
}

// ------------------------------------------------------- the monthly formats: 606, 607, 608

const MissingSchema = z
  .object({
    codigo: z
      .string()
      .openapi({ description: "unclassified, payment_date_missing, retention_type_missing, itbis_al_costo_exceeds, retention_date_missing, pending_dgii, figures_pending" }),
    mensaje: z.string(),
    id: z.string().optional().openapi({ description: "The purchase id (606)" }),
    encf: z.string().optional(),
    rnc: z.string().optional().openapi({ description: "The supplier (606)" }),
    campo: z.string().optional().openapi({ description: "The field to give" }),
    corregir: z.string().optional().openapi({ description: "The request that gives it, e.g. PATCH /compras/{id}" }),
  })
  .openapi("MonthlyFormatMissing");

const formatSchema = (formato: "606" | "607" | "608", columns: readonly string[], line: Record<string, z.ZodType>, extra: Record<string, z.ZodType> = {}) =>
  z
    .object({
      formato: z.literal(formato),
      rnc: z.string(),
      periodo: z.string().openapi({ description: "AAAAMM" }),
      archivo: z.string().openapi({ description: "The file name DGII's tool gives the TXT", example: `DGII_F_${formato}_131880681_202605.TXT` }),
      cantidadRegistros: z.number().int().openapi({ description: "Records in the file (the header's count)" }),
      completo: z.boolean().openapi({ description: "Nothing is missing: the TXT can be filed as it is" }),
      faltantes: z.array(MissingSchema).openapi({ description: "What must be given before the month can be filed" }),
      avisos: z.array(z.string()),
      lineas: z.array(
        z
          .object({
            ...line,
            campos: z
              .object(Object.fromEntries(columns.map((column) => [column, z.string()])))
              .openapi({ description: `The record's fields as written in the TXT, in order: ${columns.join(", ")}` }),
          })
          .openapi(`Formato${formato}Linea`),
      ),
      ...extra,
    })
    .openapi(`Formato${formato}`);

const LINE_606 = {
  origen: z.enum(["compra", "propio"]).openapi({ description: "compra: a supplier's e-CF (id is the purchase's); propio: the issuer's own E41, E43 or E47" }),
  id: z.string(),
  encf: z.string(),
  tipoeCF: z.string(),
  clasificacion: EffectiveClassification,
};
const LINE_607 = { encf: z.string(), tipoeCF: z.string() };
const LINE_608 = {
  encf: z.string(),
  kind: z.enum(["receipt", "unused"]).openapi({ description: "receipt: a signed receipt voided before it was sent; unused: a number never used" }),
};
const ConsumerSummary = z
  .object({
    cantidad: z.number().int(),
    montoFacturado: z.string(),
    itbisFacturado: z.string(),
    impuestoSelectivoConsumo: z.string(),
    otrosImpuestosTasas: z.string(),
    montoPropinaLegal: z.string(),
    montoTotal: z.string(),
    formasPago: z.object(Object.fromEntries(PAYMENT_COLUMNS.map((column) => [column, z.string()]))),
  })
  .openapi("ResumenConsumo", { description: "E32 under 250,000 accepted in the month: count, amounts and payment forms, for the Oficina Virtual" });

const PeriodoQuery = z.object({
  periodo: z.string().openapi({ description: "The month, AAAAMM", example: "202605" }),
  format: z.string().optional().openapi({ description: "json (default) or txt; Accept: text/plain also selects the TXT" }),
});

const MONTHLY = {
  "606": {
    summary: "Formato 606 (compras): the month's purchases and own E41/E43/E47, as DGII's tool writes the TXT, or JSON with what is missing",
    description: [
      "Purchases are the e-CF suppliers sent (in the month of their FechaEmision; commercially rejected ones are left out, listed in `excluidos`)",
      "and the issuer's own E41, E43 and E47 accepted by DGII. Each purchase's classification comes from PATCH /compras/{id}, else the",
      "defaults the issuer set for the supplier (PUT /proveedores/{rnc}/clasificacion), else the document, else the defaults learned from",
      "the supplier's last classification; `lineas[].clasificacion.origen` says which.",
      "The TXT (format=txt) is given only when nothing is missing; otherwise 422 lists `faltantes` (unclassified purchases, withholdings",
      "without a payment date, own receipts not final with DGII).",
    ].join(" "),
    columns: COLUMNS_606,
    schema: formatSchema("606", COLUMNS_606, LINE_606, {
      totales: z.record(z.string(), z.string()),
      excluidos: z.array(z.object({ id: z.string(), encf: z.string(), rncEmisor: z.string(), motivo: z.string() })),
    }),
    read: read606,
  },
  "607": {
    summary: "Formato 607 (ventas), for issuers that still file it: accepted e-CF one by one, E32 under 250,000 as the summary's totals",
    description: [
      "Every sale DGII accepted in the month (E31, E33, E34, E44, E45, E46, and E32 from 250,000) is one record; E32 under 250,000 (sent as RFCE)",
      "are summed in `resumenConsumo` for the Oficina Virtual and do not count in the header. A buyer's withholding needs its date",
      "(PATCH /ventas/{encf}); receipts not final with DGII are listed as missing. The TXT is given only when nothing is missing (422 otherwise).",
    ].join(" "),
    columns: COLUMNS_607,
    schema: formatSchema("607", COLUMNS_607, LINE_607, {
      totales: z.record(z.string(), z.string()),
      resumenConsumo: ConsumerSummary,
    }),
    read: read607,
  },
  "608": {
    summary: "Formato 608 (comprobantes anulados), for issuers that still file it: the e-NCF DGII voided (ANECF) in the month",
    description: "One record per voided e-NCF, by the month DGII voided it; Tipo de Anulación 04 for a signed receipt voided before it was sent, 08 for a number never used.",
    columns: COLUMNS_608,
    schema: formatSchema("608", COLUMNS_608, LINE_608),
    read: read608,
  },
} as const;

/** The faltantes as problem items, each pointing at the resource (and field) to change. */
function missingProblems(faltantes: readonly MissingItem[]) {
  return faltantes.map((f) => {
    const resource = f.corregir ? f.corregir.split(" ")[1]! : f.encf ? `/fe/recepcion/ecf/${f.encf}` : "/query/periodo";
    return { path: f.campo ? `${resource}/${f.campo}` : resource, code: f.codigo, message: f.mensaje, ...f };
  });
}

for (const formato of ["606", "607", "608"] as const) {
  const spec = MONTHLY[formato];
  reportRoutes.openapi(
    tenantRoute({
      method: "get",
      path: `/reports/${formato}`,
      tags: ["Reports"],
      summary: spec.summary,
      description: spec.description,
      request: { query: PeriodoQuery },
      responses: {
        200: {
          description: "The month's file: JSON (with what is missing), or the TXT exactly as DGII's tool writes it (CRLF, ASCII)",
          content: { "application/json": { schema: spec.schema }, "text/plain": { schema: z.string() } },
        },
        400: problemSchema("periodo is not AAAAMM, or an unknown format"),
        422: problemSchema("The TXT was asked for but the month is not complete: errors[] (and faltantes) list what is missing"),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const format = c.req.query("format") ?? (/text\/plain/i.test(c.req.header("Accept") ?? "") ? "txt" : "json");
      if (format !== "json" && format !== "txt")
        throw new ApiProblem("validation_failed", { errors: [{ path: "/query/format", code: "invalid", message: "format must be json or txt." }] });
      const tenant = c.get("tenant");
      const report = await spec.read(c.env, tenant, c.req.query("periodo")!);
      if (format === "json") return c.json(report, 200);
      if (!report.completo) {
        throw new ApiProblem("unprocessable", {
          detail: `The ${formato} of ${report.periodo} is not complete: ${report.faltantes.length} things are missing (see errors).`,
          errors: missingProblems(report.faltantes),
        });
      }
      return c.body(txtOf(report as MonthlyFormat<string, FormatLine<string>>, spec.columns as readonly string[]), 200, {
        "Content-Type": "text/plain; charset=us-ascii",
        "Content-Disposition": `attachment; filename="${report.archivo}"`,
        "X-Record-Count": String(report.cantidadRegistros),
      });
    }) as never,
  );
}
