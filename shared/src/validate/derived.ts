/**
 * The fields the service derives, filled into the request (`complete`): the type, number and
 * expiry, the issuer's profile, the dates from the clock, a note's TipoIngresos and
 * IndicadorNotaCredito, line numbers, and every amount and total. What the client sent of them
 * is judged instead: amounts against the computation within DGII's tolerances. Its own module
 * because it is the one step that writes into the document: every check after it only reads.
 */
import { indicadorNotaCredito } from "../credit-notes.ts";
import { formatDgiiDate, formatDgiiDateTime } from "../dgii-time.ts";
import { ZERO, add, compare, dec, formatMoney, isZero, mul, roundHalfUp, sub, type Decimal } from "../money.ts";
import { obligationOf } from "../obligations.ts";
import { jsonMappingRule, jsonPointer, problem, type Problem, type Severity } from "../problems.ts";
import type { TipoeCF } from "../tipos.ts";
import { globalTolerance, judgeDifference, LINE_TOLERANCE } from "../tolerance.ts";
import {
  computeTotalsDetailed,
  isTextCorrectionNote,
  lineTotals,
  type LineTotals,
  type TotalsOptions,
} from "../totals.ts";
import { codeOf, decimalOf, isObject, isPresent, objAt, textOf, type JsonObject } from "../totals-read.ts";
import type { ValidationContext } from "./context.ts";

/** The object at `keys`, created when missing; a present non-object is reported, then replaced. */
function ensureObject(problems: Problem[], root: JsonObject, ...keys: string[]): JsonObject {
  let cur = root;
  const path: string[] = [];
  for (const k of keys) {
    path.push(k);
    if (!isObject(cur[k])) {
      if (isPresent(cur[k]) && !(path.length === 1 && k === "Encabezado")) {
        problems.push(
          problem(
            jsonPointer(...path),
            "invalid_type",
            "error",
            `${k} must be an object`,
            `${k} debe ser un objeto`,
            jsonMappingRule(`${k} is an object (xsd:element ${k})`),
            {
              value: cur[k],
            },
          ),
        );
      }
      cur[k] = {};
    }
    cur = cur[k] as JsonObject;
  }
  return cur;
}

/** formato-ecf field 8: the TipoIngresos codes, and the one assumed for a note that names none. */
const TIPO_INGRESOS = new Set(["01", "02", "03", "04", "05", "06"]);
const DEFAULT_TIPO_INGRESOS = "01";

const TOTALES_AMOUNTS = [
  "MontoGravadoTotal",
  "MontoGravadoI1",
  "MontoGravadoI2",
  "MontoGravadoI3",
  "MontoExento",
  "TotalITBIS",
  "TotalITBIS1",
  "TotalITBIS2",
  "TotalITBIS3",
  "MontoImpuestoAdicional",
  "MontoTotal",
  "MontoNoFacturable",
  "MontoPeriodo",
  "ValorPagar",
  "TotalITBISRetenido",
  "TotalISRRetencion",
] as const;
const TAX_AMOUNT_KEYS = [
  "MontoImpuestoSelectivoConsumoEspecifico",
  "MontoImpuestoSelectivoConsumoAdvalorem",
  "OtrosImpuestosAdicionales",
] as const;
const OTRA_MONEDA_AMOUNTS = [
  "MontoGravadoTotalOtraMoneda",
  "MontoGravado1OtraMoneda",
  "MontoGravado2OtraMoneda",
  "MontoGravado3OtraMoneda",
  "MontoExentoOtraMoneda",
  "TotalITBISOtraMoneda",
  "TotalITBIS1OtraMoneda",
  "TotalITBIS2OtraMoneda",
  "TotalITBIS3OtraMoneda",
  "MontoImpuestoAdicionalOtraMoneda",
  "MontoTotalOtraMoneda",
] as const;

/** What completing leaves the checks: its problems and the MontoTotal the conditions read. */
export interface Completion {
  problems: Problem[];
  montoTotal: Decimal;
}

/** The rule for the per-line and global tolerances DGII applies to amounts. */
const LINE_TOLERANCE_RULE = "informe-tecnico §12: tolerancia por línea ±1";
const GLOBAL_TOLERANCE_RULE = "informe-tecnico §12: tolerancia global ±(número de líneas)";

/** Judges a sent amount against the computed one and reports it when outside the tolerance. */
type Judge = (path: string, field: string, sent: Decimal, computed: Decimal) => void;

/** Fills what the service derives and checks what the client sent of it. */
export function complete(doc: JsonObject, tipo: TipoeCF, context: ValidationContext): Completion {
  const problems: Problem[] = [];
  const severity: Severity = context.totalsPolicy === "dgii" ? "warning" : "error";
  const idDoc = completeIdDoc(doc, tipo, context, problems);
  const emisor = completeEmisor(doc, context, problems);
  if (tipo === "33" || tipo === "34") completeNoteTipoIngresos(idDoc, tipo, context, problems);
  if (tipo === "34") completeIndicadorNotaCredito(doc, idDoc, emisor, problems);

  const items = Array.isArray(doc.DetallesItems) ? (doc.DetallesItems as unknown[]) : [];
  const textNote = isTextCorrectionNote(doc);
  const options: TotalsOptions = context.tasas ? { tasas: context.tasas } : {};
  const lines: LineTotals[] = [];
  items.forEach((item, i) => {
    if (isObject(item)) lines.push(completeLine(item, i, { textNote, options, severity }, problems));
  });
  // The line figures just computed are the totals' (MontoItem, when filled, is the computed one).
  const reusable = !textNote && lines.length === items.length;
  return completeTotals(
    doc,
    { items: items.length, textNote, options, severity, ...(reusable ? { lines } : {}) },
    problems,
  );
}

/** Encabezado's Version and IdDoc: the type, and the number and expiry the ledger assigned. */
function completeIdDoc(doc: JsonObject, tipo: TipoeCF, context: ValidationContext, problems: Problem[]): JsonObject {
  const encabezado = ensureObject(problems, doc, "Encabezado");
  if (!isPresent(encabezado.Version)) encabezado.Version = "1.0";
  const idDoc = ensureObject(problems, doc, "Encabezado", "IdDoc");
  if (!isPresent(idDoc.TipoeCF)) idDoc.TipoeCF = tipo;
  if (!isPresent(idDoc.eNCF) && context.eNCF) idDoc.eNCF = context.eNCF;
  const expiryAllowed = obligationOf("Encabezado/IdDoc/FechaVencimientoSecuencia", tipo) !== 0;
  if (!isPresent(idDoc.FechaVencimientoSecuencia) && context.fechaVencimientoSecuencia && expiryAllowed) {
    idDoc.FechaVencimientoSecuencia = context.fechaVencimientoSecuencia;
  }
  return idDoc;
}

/** Emisor from the issuer's profile, FechaEmision and FechaHoraFirma from the clock. */
function completeEmisor(doc: JsonObject, context: ValidationContext, problems: Problem[]): JsonObject {
  const emisor = ensureObject(problems, doc, "Encabezado", "Emisor");
  // The profile's RNC is the authenticated issuer: a request cannot issue for another one.
  const rncPerfil = context.emisor?.RNCEmisor;
  const rncSent = textOf(emisor, "RNCEmisor");
  if (rncPerfil && rncSent !== undefined && rncSent !== rncPerfil) {
    problems.push(
      problem(
        "/Encabezado/Emisor/RNCEmisor",
        "emisor_mismatch",
        "error",
        `RNCEmisor ${rncSent} is not the issuer's RNC ${rncPerfil}`,
        `RNCEmisor ${rncSent} no es el RNC del emisor ${rncPerfil}`,
        "formato-ecf: RNCEmisor (RNC autorizado como emisor electrónico)",
        { sent: rncSent, expected: rncPerfil },
      ),
    );
  }
  for (const [k, v] of Object.entries(context.emisor ?? {})) {
    if (!isPresent(emisor[k]) && isPresent(v)) emisor[k] = Array.isArray(v) ? [...v] : v;
  }
  if (!isPresent(emisor.FechaEmision)) emisor.FechaEmision = formatDgiiDate(context.now);
  if (!isPresent(doc.FechaHoraFirma)) doc.FechaHoraFirma = formatDgiiDateTime(context.now);
  return emisor;
}

/**
 * E33/E34: TipoIngresos is required (XSD minOccurs 1) but a note only repeats the income type of
 * the receipt it modifies, and DGII's own certification set leaves it empty in a note on an E41
 * (which has none): take the modified receipt's, else assume 01 and say so.
 */
function completeNoteTipoIngresos(
  idDoc: JsonObject,
  tipo: TipoeCF,
  context: ValidationContext,
  problems: Problem[],
): void {
  if (isPresent(idDoc.TipoIngresos)) return;
  const inherited = context.modifiedReceipt?.TipoIngresos;
  if (isPresent(inherited) && TIPO_INGRESOS.has(String(inherited).padStart(2, "0"))) {
    idDoc.TipoIngresos = String(inherited).padStart(2, "0");
    return;
  }
  idDoc.TipoIngresos = DEFAULT_TIPO_INGRESOS;
  const what = `(Ingresos por operaciones, no financieros)`;
  problems.push(
    problem(
      "/Encabezado/IdDoc/TipoIngresos",
      "assumed_value",
      "warning",
      `TipoIngresos was missing and the modified receipt's is not known: assumed ${DEFAULT_TIPO_INGRESOS} ${what}`,
      `TipoIngresos no fue enviado y no se conoce el del comprobante modificado: se asumió ${DEFAULT_TIPO_INGRESOS} ${what}`,
      `formato-ecf: TipoIngresos (${tipo}: 1), derived for notes when absent`,
      { assumed: DEFAULT_TIPO_INGRESOS },
    ),
  );
}

/** E34: IndicadorNotaCredito from the two dates (more than 30 days → 1). */
function completeIndicadorNotaCredito(
  doc: JsonObject,
  idDoc: JsonObject,
  emisor: JsonObject,
  problems: Problem[],
): void {
  const derived = indicadorNotaCredito(emisor.FechaEmision, objAt(doc, "InformacionReferencia")?.FechaNCFModificado);
  if (derived === undefined) return;
  const sent = codeOf(idDoc, "IndicadorNotaCredito");
  if (sent === undefined) {
    idDoc.IndicadorNotaCredito = derived;
    return;
  }
  if (sent === derived) return;
  const [more, mas] = derived === "1" ? ["more", "más"] : ["not more", "no más"];
  problems.push(
    problem(
      "/Encabezado/IdDoc/IndicadorNotaCredito",
      "inconsistent_value",
      "error",
      `IndicadorNotaCredito must be ${derived}: ${more} than 30 days separate FechaEmision from FechaNCFModificado`,
      `IndicadorNotaCredito debe ser ${derived}: ${mas} de 30 días separan FechaEmision de FechaNCFModificado`,
      "formato-ecf: IndicadorNotaCredito (34: 1)",
      { sent, computed: derived },
    ),
  );
}

interface LineSettings {
  /** An E34 that corrects text (CodigoModificacion 2): every amount is 0.00. */
  textNote: boolean;
  options: TotalsOptions;
  /** Of an amount outside the tolerance: "warning" under the DGII totals policy. */
  severity: Severity;
}

/** One line: NumeroLinea, then MontoItemOtraMoneda and MontoItem filled or judged. */
function completeLine(item: JsonObject, i: number, settings: LineSettings, problems: Problem[]): LineTotals {
  if (!isPresent(item.NumeroLinea)) item.NumeroLinea = String(i + 1);
  const line = lineTotals(item, i, settings.options);
  if (settings.textNote) {
    completeTextNoteLine(item, i, problems);
    return line;
  }
  completeLineOtraMoneda(item, i, settings.severity, problems);
  if (!isPresent(item.MontoItem) && line.computedMontoItem) {
    item.MontoItem = formatMoney(line.computedMontoItem);
    return line;
  }
  const sent = decimalOf(item, "MontoItem");
  if (!line.computedMontoItem || !sent) return line;
  const d = judgeDifference(sent, line.computedMontoItem, LINE_TOLERANCE);
  if (d.withinTolerance) return line;
  problems.push(
    problem(
      jsonPointer("DetallesItems", i, "MontoItem"),
      "line_out_of_tolerance",
      settings.severity,
      `MontoItem differs from quantity × price − discount + surcharge by more than ±1.00 (computed ${d.computed})`,
      `MontoItem difiere de cantidad × precio − descuento + recargo en más de ±1.00 (calculado ${d.computed})`,
      LINE_TOLERANCE_RULE,
      { ...d, dgiiOutcome: "aceptado_condicional" },
    ),
  );
  return line;
}

/** A line of a text-correcting E34: MontoItem is 0.00. */
function completeTextNoteLine(item: JsonObject, i: number, problems: Problem[]): void {
  const sent = decimalOf(item, "MontoItem");
  if (!sent) {
    item.MontoItem = "0.00";
    return;
  }
  if (isZero(sent)) return;
  // formato-ecf says 0.00; DGII's own certification case uses a non-billable line of 1.00,
  // so a non-billable line only gets a warning.
  const nonBillable = codeOf(item, "IndicadorFacturacion") === "0";
  problems.push(
    problem(
      jsonPointer("DetallesItems", i, "MontoItem"),
      "must_be_zero",
      nonBillable ? "warning" : "error",
      "A credit note that corrects text (CodigoModificacion 2) has MontoItem 0.00",
      "Una nota de crédito que corrige texto (CodigoModificacion 2) lleva MontoItem 0.00",
      "formato-ecf: MontoItem (c)",
      { sent: textOf(item, "MontoItem") },
    ),
  );
}

/** OtraMonedaDetalle: (PrecioOtraMoneda × CantidadItem) − DescuentoOtraMoneda + RecargoOtraMoneda (field 38). */
function completeLineOtraMoneda(item: JsonObject, i: number, severity: Severity, problems: Problem[]): void {
  const omd = isObject(item.OtraMonedaDetalle) ? item.OtraMonedaDetalle : undefined;
  const precioOM = decimalOf(omd, "PrecioOtraMoneda");
  const qty = decimalOf(item, "CantidadItem");
  if (!omd || !precioOM || !qty) return;
  const gross = mul(precioOM, qty);
  const computedOM = roundHalfUp(
    add(sub(gross, decimalOf(omd, "DescuentoOtraMoneda") ?? ZERO), decimalOf(omd, "RecargoOtraMoneda") ?? ZERO),
  );
  const sentOM = decimalOf(omd, "MontoItemOtraMoneda");
  if (!sentOM && !isPresent(omd.MontoItemOtraMoneda)) {
    omd.MontoItemOtraMoneda = formatMoney(computedOM);
    return;
  }
  if (!sentOM) return;
  const d = judgeDifference(sentOM, computedOM, LINE_TOLERANCE);
  if (d.withinTolerance) return;
  problems.push(
    problem(
      jsonPointer("DetallesItems", i, "OtraMonedaDetalle", "MontoItemOtraMoneda"),
      "line_out_of_tolerance",
      severity,
      `MontoItemOtraMoneda differs from PrecioOtraMoneda × quantity − discount + surcharge by more than ±1.00 (computed ${d.computed})`,
      `MontoItemOtraMoneda difiere de PrecioOtraMoneda × cantidad − descuento + recargo en más de ±1.00 (calculado ${d.computed})`,
      LINE_TOLERANCE_RULE,
      { ...d, dgiiOutcome: "aceptado_condicional" },
    ),
  );
}

interface TotalsSettings extends LineSettings {
  /** Number of lines: the global tolerance is ±(number of lines). */
  items: number;
  /** The lines' figures, when completing the lines computed them already. */
  lines?: LineTotals[];
}

type TotalsDetailed = ReturnType<typeof computeTotalsDetailed>;

/** The document's totals computed on both bases: as sent (MontoItem) and as recomputed (quantity × price). */
interface TotalsBases {
  filled: TotalsDetailed;
  recomputed: TotalsDetailed;
}

/**
 * Totals: the document basis fills what is missing; sent values are judged against the
 * recomputed basis (quantity × price), as DGII does, within ±(number of lines).
 */
function completeTotals(doc: JsonObject, settings: TotalsSettings, problems: Problem[]): Completion {
  const filled = computeTotalsDetailed(doc, settings.options, settings.lines);
  // Both bases agree when every line's MontoItem is the computed one: compute once then.
  const sameBasis = filled.lines.every((l) => !l.computedMontoItem || compare(l.computedMontoItem, l.montoItem) === 0);
  const recomputed = sameBasis ? filled : computeTotalsDetailed(doc, { ...settings.options, basis: "recomputed" });
  const bases: TotalsBases = { filled, recomputed };
  const totales = ensureObject(problems, doc, "Encabezado", "Totales");
  const judge = judgeWithin(globalTolerance(settings.items), settings.severity, problems);

  if (settings.textNote) {
    completeTextNoteTotals(totales, problems);
    return { problems, montoTotal: ZERO };
  }
  dropNonEcfTotals(totales, problems);
  completeTotalesAmounts(totales, bases, judge);
  completeItbisRates(totales, bases, problems);
  completeBalances(totales, bases);
  completeAdditionalTaxes(totales, bases, judge);
  // Perception is carried over as sent (no line amounts exist for it).
  completeOtraMoneda(doc, bases, judge, problems);
  return { problems, montoTotal: decimalOf(totales, "MontoTotal") ?? ZERO };
}

function judgeWithin(tolerance: Decimal, severity: Severity, problems: Problem[]): Judge {
  return (path, field, sent, computed) => {
    const d = judgeDifference(sent, computed, tolerance);
    if (d.withinTolerance) return;
    problems.push(
      problem(
        path,
        "total_out_of_tolerance",
        severity,
        `${field} differs from the computed ${d.computed} by more than the tolerance ±${d.tolerance}`,
        `${field} difiere del valor calculado ${d.computed} en más de la tolerancia ±${d.tolerance}`,
        GLOBAL_TOLERANCE_RULE,
        { ...d, dgiiOutcome: "aceptado_condicional" },
      ),
    );
  };
}

/** A text-correcting E34 holds only MontoTotal 0.00. */
function completeTextNoteTotals(totales: JsonObject, problems: Problem[]): void {
  const rule = "formato-ecf: MontoTotal (E34, CodigoModificacion 2)";
  for (const k of Object.keys(totales)) {
    if (k === "MontoTotal") continue;
    problems.push(
      problem(
        jsonPointer("Encabezado", "Totales", k),
        "dropped_field",
        "warning",
        `${k} was dropped: an E34 that corrects text holds only MontoTotal 0.00 (DGII rejections 1930/1960)`,
        `${k} se omitió: una E34 que corrige texto lleva solo MontoTotal 0.00 (rechazos DGII 1930/1960)`,
        rule,
      ),
    );
    delete totales[k];
  }
  const sent = decimalOf(totales, "MontoTotal");
  if (sent && !isZero(sent)) {
    problems.push(
      problem(
        "/Encabezado/Totales/MontoTotal",
        "must_be_zero",
        "error",
        "An E34 that corrects text has MontoTotal 0.00",
        "Una E34 que corrige texto lleva MontoTotal 0.00",
        rule,
        {
          sent: textOf(totales, "MontoTotal"),
        },
      ),
    );
  }
  totales.MontoTotal = "0.00";
}

/** Some integrations send these; they are not e-CF elements and DGII rejects them. */
function dropNonEcfTotals(totales: JsonObject, problems: Problem[]): void {
  for (const k of ["MontoDescuentosGlobales", "MontoRecargosGlobales"]) {
    if (!(k in totales)) continue;
    problems.push(
      problem(
        jsonPointer("Encabezado", "Totales", k),
        "dropped_field",
        "warning",
        `${k} is not an e-CF element and was dropped (global discounts and surcharges go in DescuentosORecargos)`,
        `${k} no es un elemento del e-CF y se omitió (los descuentos y recargos globales van en DescuentosORecargos)`,
        "formato-ecf: Totales",
      ),
    );
    delete totales[k];
  }
}

/** Each amount of Totales: judged when sent (MontoPeriodo and ValorPagar against the sent basis), else filled. */
function completeTotalesAmounts(totales: JsonObject, bases: TotalsBases, judge: Judge): void {
  const computedT = bases.filled.Totales as unknown as Record<string, unknown>;
  const recomputedT = bases.recomputed.Totales as unknown as Record<string, unknown>;
  for (const key of TOTALES_AMOUNTS) {
    const sent = decimalOf(totales, key);
    const mine = computedT[key];
    const path = jsonPointer("Encabezado", "Totales", key);
    if (sent) {
      if (key === "MontoPeriodo" || key === "ValorPagar") {
        if (typeof mine === "string") judge(path, key, sent, dec(mine));
        continue;
      }
      const reference = recomputedT[key];
      judge(path, key, sent, typeof reference === "string" ? dec(reference) : ZERO);
    } else if (typeof mine === "string" && !isPresent(totales[key])) {
      totales[key] = mine;
    }
  }
}

/** ITBIS1..3, the rates: filled, or checked against the computed ones. */
function completeItbisRates(totales: JsonObject, bases: TotalsBases, problems: Problem[]): void {
  const computedT = bases.filled.Totales as unknown as Record<string, unknown>;
  for (const k of ["ITBIS1", "ITBIS2", "ITBIS3"] as const) {
    const sent = codeOf(totales, k);
    const mine = computedT[k];
    if (sent === undefined) {
      if (typeof mine === "string") totales[k] = mine;
    } else if (mine !== undefined && sent !== mine) {
      const [path, rule] = [jsonPointer("Encabezado", "Totales", k), `formato-ecf: ${k}`];
      const details = { sent, expected: mine };
      problems.push(
        problem(
          path,
          "invalid_value",
          "error",
          `${k} must be ${String(mine)}`,
          `${k} debe ser ${String(mine)}`,
          rule,
          details,
        ),
      );
    }
  }
}

/** SaldoAnterior and MontoAvancePago: filled when the computation has them. */
function completeBalances(totales: JsonObject, bases: TotalsBases): void {
  const computedT = bases.filled.Totales as unknown as Record<string, unknown>;
  for (const k of ["SaldoAnterior", "MontoAvancePago"] as const) {
    if (!isPresent(totales[k]) && typeof computedT[k] === "string") totales[k] = computedT[k];
  }
}

/** Additional taxes: per code, sent amounts are judged; missing rows are filled. */
function completeAdditionalTaxes(totales: JsonObject, bases: TotalsBases, judge: Judge): void {
  const mineTaxes = bases.filled.Totales.ImpuestosAdicionales ?? [];
  const refTaxes = bases.recomputed.Totales.ImpuestosAdicionales ?? [];
  if (!Array.isArray(totales.ImpuestosAdicionales) || totales.ImpuestosAdicionales.length === 0) {
    if (mineTaxes.length > 0) totales.ImpuestosAdicionales = mineTaxes.map((r) => ({ ...r }));
    return;
  }
  (totales.ImpuestosAdicionales as unknown[]).forEach((row, i) => {
    if (!isObject(row)) return;
    const code = textOf(row, "TipoImpuesto")?.padStart(3, "0");
    const ref = refTaxes.find((r) => r.TipoImpuesto === code) as Record<string, string | undefined> | undefined;
    const mine = mineTaxes.find((r) => r.TipoImpuesto === code) as Record<string, string | undefined> | undefined;
    if (!isPresent(row.TasaImpuestoAdicional) && mine?.TasaImpuestoAdicional)
      row.TasaImpuestoAdicional = mine.TasaImpuestoAdicional;
    for (const key of TAX_AMOUNT_KEYS) {
      const sent = decimalOf(row, key);
      if (sent)
        judge(
          jsonPointer("Encabezado", "Totales", "ImpuestosAdicionales", i, key),
          key,
          sent,
          ref?.[key] ? dec(ref[key]!) : ZERO,
        );
      else if (mine?.[key] && !isPresent(row[key])) row[key] = mine[key];
    }
  });
}

/** OtraMoneda: filled and judged like Totales. */
function completeOtraMoneda(doc: JsonObject, bases: TotalsBases, judge: Judge, problems: Problem[]): void {
  const { filled, recomputed } = bases;
  if (!filled.OtraMoneda) return;
  const om = ensureObject(problems, doc, "Encabezado", "OtraMoneda");
  const mine = filled.OtraMoneda as unknown as Record<string, unknown>;
  const ref = (recomputed.OtraMoneda ?? {}) as unknown as Record<string, unknown>;
  for (const key of OTRA_MONEDA_AMOUNTS) {
    const sent = decimalOf(om, key);
    if (sent)
      judge(
        jsonPointer("Encabezado", "OtraMoneda", key),
        key,
        sent,
        typeof ref[key] === "string" ? dec(ref[key] as string) : ZERO,
      );
    else if (typeof mine[key] === "string" && !isPresent(om[key])) om[key] = mine[key];
  }
  if (!isPresent(om.ImpuestosAdicionalesOtraMoneda) && filled.OtraMoneda.ImpuestosAdicionalesOtraMoneda) {
    om.ImpuestosAdicionalesOtraMoneda = filled.OtraMoneda.ImpuestosAdicionalesOtraMoneda.map((r) => ({ ...r }));
  }
}
