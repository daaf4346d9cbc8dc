// The JSON answer of GET /reports/{606,607,608}: the built format under the service's English
// names, each beside its earlier Spanish twin with the same value (deprecated in /openapi.json,
// removed in 1.9.0), so a client written against the Spanish names keeps working for one minor
// version. DGII's own names (the TXT's columns in `fields`, the totals' keys) are DGII's in both.
import type { z } from "@hono/zod-openapi";
import type { Formato606, Formato607, Formato608 } from "../http/schemas/reports.ts";
import type { Report606 } from "./dgii-606.ts";
import type { Report607 } from "./dgii-607.ts";
import type { Report608 } from "./dgii-608.ts";
import type { DgiiFormat, FormatLine, MissingItem, MonthlyFormat } from "./dgii-txt.ts";

/** A 606 line's source in the earlier Spanish words. */
const LEGACY_LINE_SOURCE = { purchase: "compra", own: "propio" } as const;

/** A missing item under both names. */
export function missingAnswer(item: MissingItem) {
  return {
    ...item,
    codigo: item.code,
    mensaje: item.message,
    ...(item.field === undefined ? {} : { campo: item.field }),
    ...(item.fixWith === undefined ? {} : { corregir: item.fixWith }),
  };
}

/** The fields every format shares. */
function common<F extends DgiiFormat>(report: Omit<MonthlyFormat<string, FormatLine<string>, F>, "lines">) {
  const missing = report.missing.map(missingAnswer);
  return {
    format: report.format,
    rnc: report.rnc,
    period: report.period,
    fileName: report.fileName,
    recordCount: report.recordCount,
    complete: report.complete,
    missing,
    warnings: report.warnings,
    formato: report.format,
    periodo: report.period,
    archivo: report.fileName,
    cantidadRegistros: report.recordCount,
    completo: report.complete,
    faltantes: missing,
    avisos: report.warnings,
  };
}

export function answer606(report: Report606): z.infer<typeof Formato606> {
  const lines = report.lines.map((line) => ({
    ...line,
    origen: LEGACY_LINE_SOURCE[line.source],
    clasificacion: line.classification,
    campos: line.fields,
  }));
  const excluded = report.excluded.map((e) => ({ ...e, motivo: e.reason }));
  return { ...common(report), lines, lineas: lines, totals: report.totals, totales: report.totals, excluded, excluidos: excluded };
}

export function answer607(report: Report607): z.infer<typeof Formato607> {
  const lines = report.lines.map((line) => ({ ...line, campos: line.fields }));
  const summary = { ...report.consumptionSummary, cantidad: report.consumptionSummary.count };
  return {
    ...common(report),
    lines,
    lineas: lines,
    totals: report.totals,
    totales: report.totals,
    consumptionSummary: summary,
    resumenConsumo: summary,
  };
}

export function answer608(report: Report608): z.infer<typeof Formato608> {
  const lines = report.lines.map((line) => ({ ...line, campos: line.fields }));
  return { ...common(report), lines, lineas: lines };
}
