/**
 * `validateEcf`: the one entry point that turns an e-CF request (JSON mirroring DGII's XML) into
 * the completed canonical document, reporting every problem at once.
 *
 * Order of work: complete the derivable fields (context, clock, line numbers, amounts, totals),
 * canonicalize (numbers → DGII text), then check: structure and formats (XSD), the obligation
 * matrix with its conditions, identifiers and dates, totals against DGII's tolerance, and the
 * per-type rules. It never throws, whatever the input.
 */
import { availableBalance, indicadorNotaCredito, isCodigoModificacion, type AcceptedNote } from "./credit-notes.ts";
import { CONDITIONS, isHighValueConsumo, typeRules, type Condition } from "./ecf-rules.ts";
export { isRfceSummary } from "./rfce-threshold.ts";
import { dayNumber, formatDgiiDate, formatDgiiDateTime } from "./dgii-time.ts";
import { eNcfProblems, parseENcf, rncProblems } from "./ids.ts";
import {
  ZERO,
  add,
  compare,
  dec,
  formatMoney,
  isZero,
  mul,
  parseDecimal,
  roundHalfUp,
  sub,
  type Decimal,
} from "./money.ts";
import { FIELD_PATHS, arrayChild, obligationOf, type ObligationCode } from "./obligations.ts";
import {
  jsonMappingRule,
  jsonPointer,
  problem,
  trailPointer,
  trailTo,
  type Problem,
  type Severity,
  type Trail,
} from "./problems.ts";
import { isTipoeCF, type TipoeCF } from "./tipos.ts";
import { globalTolerance, judgeDifference, LINE_TOLERANCE } from "./tolerance.ts";
import {
  computeTotalsDetailed,
  isTextCorrectionNote,
  lineTotals,
  type LineTotals,
  type TotalsOptions,
} from "./totals.ts";
import { codeOf, decimalOf, isObject, isPresent, objAt, textOf, type JsonObject } from "./totals-read.ts";
import { canonicalize } from "./xml/canonical.ts";
import { checkStructure } from "./xml/structure.ts";

/** Issuer data from the company profile, used for any `Emisor` field the request leaves out. */
export interface EmisorProfile {
  RNCEmisor?: string;
  RazonSocialEmisor?: string;
  NombreComercial?: string;
  Sucursal?: string;
  DireccionEmisor?: string;
  Municipio?: string;
  Provincia?: string;
  TablaTelefonoEmisor?: string[];
  CorreoEmisor?: string;
  WebSite?: string;
  ActividadEconomica?: string;
  CodigoVendedor?: string;
  InformacionAdicionalEmisor?: string;
}

/** The receipt an E33/E34 modifies, as our records know it (enables the balance checks). */
export interface ModifiedReceipt {
  eNCF: string;
  /** dd-MM-yyyy */
  fechaEmision?: string;
  /** Its MontoTotal. */
  montoTotal: string;
  /** Notes DGII already accepted against it. */
  acceptedNotes?: readonly AcceptedNote[];
  /**
   * Its `TipoIngresos` (01-06), when it has one (E41, E43 and E47 have none). A note that leaves
   * TipoIngresos out inherits it: the note classifies the same income as the receipt it modifies.
   */
  TipoIngresos?: string;
}

/** What a total beyond DGII's tolerance is: an error ("strict", the default) or a warning ("dgii"). */
export const TOTALS_POLICIES = ["strict", "dgii"] as const;
export type TotalsPolicy = (typeof TOTALS_POLICIES)[number];

export interface ValidationContext {
  /** The clock: FechaEmision defaults to this day in America/Santo_Domingo; FechaHoraFirma to this instant. */
  now: Date;
  /** The e-NCF assigned from the issuer's sequence (used when the request has none). */
  eNCF?: string;
  /** dd-MM-yyyy expiry of that sequence (used when the request has none and the type carries it). */
  fechaVencimientoSecuencia?: string;
  /** Company profile: fills the `Emisor` fields the request leaves out; the request wins. */
  emisor?: EmisorProfile;
  /**
   * For E33/E34: the modified receipt, to check amounts against what remains of it, and to derive
   * the note's `TipoIngresos` when the request leaves it out (otherwise "01" is assumed, with a
   * warning).
   */
  modifiedReceipt?: ModifiedReceipt;
  /**
   * What a sent total beyond DGII's tolerance is. DGII does not reject it but accepts the e-CF
   * "condicional" (informe-tecnico §12) and the issuer must then correct it with a note, so by
   * default ("strict") we refuse to issue it: an error showing the computed value. "dgii" reports
   * it as a warning, exactly as DGII would let it through.
   */
  totalsPolicy?: TotalsPolicy;
  /** Current ISC específico rates by code (DGII adjusts them quarterly); see TotalsOptions. */
  tasas?: TotalsOptions["tasas"];
}

export interface ValidationResult {
  /** No problem of severity "error". */
  ok: boolean;
  /** The completed canonical document (every leaf a string as in XML). */
  document: Record<string, unknown>;
  problems: Problem[];
}

/**
 * A JSON-only deep copy (drops functions and symbols; cycles and absurd depth become undefined):
 * never throws. `__proto__` keys are left out and listed in `dropped` (as JSON pointers), so that
 * no later `obj[key] = value` can turn request data into a prototype.
 */
function cloneJson(v: unknown, dropped: string[], path: Trail | null = null, ancestors: object[] = []): unknown {
  if (v === null || typeof v !== "object") return typeof v === "function" || typeof v === "symbol" ? undefined : v;
  // The objects above this one (a document is a few levels deep: a scan beats a Set).
  if (ancestors.length > 64 || ancestors.includes(v)) return undefined;
  ancestors.push(v);
  try {
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i], dropped, trailTo(path, i), ancestors);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (k === "__proto__") {
        dropped.push(trailPointer(trailTo(path, k)));
        continue;
      }
      const c = cloneJson((v as Record<string, unknown>)[k], dropped, trailTo(path, k), ancestors);
      if (c !== undefined) out[k] = c;
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

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

function tipoFrom(doc: unknown, context: ValidationContext): TipoeCF | undefined {
  const raw = textOf(objAt(doc, "Encabezado", "IdDoc"), "TipoeCF");
  if (isTipoeCF(raw)) return raw;
  if (raw === undefined) return parseENcf(textOf(objAt(doc, "Encabezado", "IdDoc"), "eNCF") ?? context.eNCF)?.tipo;
  return undefined;
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

interface Completion {
  problems: Problem[];
  montoTotal: Decimal;
}

/** The rule for the per-line and global tolerances DGII applies to amounts. */
const LINE_TOLERANCE_RULE = "informe-tecnico §12: tolerancia por línea ±1";
const GLOBAL_TOLERANCE_RULE = "informe-tecnico §12: tolerancia global ±(número de líneas)";

/** Judges a sent amount against the computed one and reports it when outside the tolerance. */
type Judge = (path: string, field: string, sent: Decimal, computed: Decimal) => void;

/** Fills what the service derives and checks what the client sent of it. */
function complete(doc: JsonObject, tipo: TipoeCF, context: ValidationContext): Completion {
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
  const derived = indicadorNotaCredito(
    emisor.FechaEmision,
    valueAt(doc, "InformacionReferencia", "FechaNCFModificado"),
  );
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

function valueAt(root: unknown, ...keys: string[]): unknown {
  let cur = root;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

interface Node {
  trail: Trail | null;
  node: unknown;
}

/**
 * The nodes holding a field's `depth`-th segment (reached by its first `depth` segments), arrays
 * expanded. Memoized by prefix in `memo`, so the many fields of one line share the walk to it.
 */
function containersAt(doc: JsonObject, field: PlannedField, depth: number, memo: (Node[] | undefined)[]): Node[] {
  if (depth === 0) return [{ trail: null, node: doc }];
  const key = field.prefixes[depth]!;
  const hit = memo[key];
  if (hit) return hit;
  const seg = field.segments[depth - 1]!;
  const out: Node[] = [];
  for (const f of containersAt(doc, field, depth - 1, memo)) {
    if (field.arrayAfter[depth - 1]) {
      if (Array.isArray(f.node)) f.node.forEach((el, i) => out.push({ trail: trailTo(f.trail, i), node: el }));
    } else if (isObject(f.node) && f.node[seg] !== undefined) {
      out.push({ trail: trailTo(f.trail, seg), node: f.node[seg] });
    }
  }
  memo[key] = out;
  return out;
}

const FILLED_AT_SIGNING = new Set(["FechaHoraFirma"]);

interface PlannedField {
  path: string;
  name: string;
  code: ObligationCode;
  segments: string[];
  /** For each segment: is it the repeated child of the array container before it? */
  arrayAfter: boolean[];
  /** For each depth, the number of the path of the segments above it (the memo key of containersAt). */
  prefixes: number[];
  /** For code 2, when it is required. */
  condition: Condition | undefined;
  tipo: TipoeCF;
}

/** The holder of an element of a repeated group (conditions on it see no siblings). */
const EMPTY_HOLDER: JsonObject = Object.freeze({});

/** Per type, only the fields that can produce a problem (codes 0 and 1, and 2 with a condition). */
interface Plan {
  fields: PlannedField[];
  /** How many distinct prefixes the fields' paths have (the size of containersAt's memo). */
  prefixCount: number;
}

const plans = new Map<TipoeCF, Plan>();
function planFor(tipo: TipoeCF): Plan {
  const known = plans.get(tipo);
  if (known) return known;
  const fields: PlannedField[] = [];
  const prefixNumbers = new Map<string, number>();
  const numberOf = (prefix: string) =>
    prefixNumbers.get(prefix) ?? prefixNumbers.set(prefix, prefixNumbers.size).get(prefix)!;
  for (const path of FIELD_PATHS) {
    const code = obligationOf(path, tipo) as ObligationCode;
    if (code === 3 || (code === 2 && !CONDITIONS[path]) || (code === 1 && FILLED_AT_SIGNING.has(path))) continue;
    const segments = path.split("/");
    const arrayAfter = segments.map((seg, i) => i > 0 && arrayChild(segments.slice(0, i).join("/")) === seg);
    const prefixes = segments.map((_, i) => numberOf(segments.slice(0, i).join("/")));
    fields.push({
      path,
      name: segments[segments.length - 1]!,
      code,
      segments,
      arrayAfter,
      prefixes,
      tipo,
      condition: CONDITIONS[path],
    });
  }
  const plan = { fields, prefixCount: prefixNumbers.size };
  plans.set(tipo, plan);
  return plan;
}

/** The obligation matrix (and its evaluable conditions) applied to a canonical document. */
export function obligationProblems(doc: JsonObject, tipo: TipoeCF, montoTotal: Decimal): Problem[] {
  const out: Problem[] = [];
  const plan = planFor(tipo);
  const memo = new Array<Node[] | undefined>(plan.prefixCount);
  for (const field of plan.fields) {
    const depth = field.segments.length - 1;
    const seg = field.segments[depth]!;
    const overArray = field.arrayAfter[depth];
    // Only a present prohibited field or an absent required (or conditional) one can be a problem.
    const judgeWhenPresent = field.code === 0;
    const containers = containersAt(doc, field, depth, memo);
    for (let k = 0; k < containers.length; k++) {
      const f = containers[k]!;
      const node = f.node;
      if (overArray) {
        if (!Array.isArray(node)) continue;
        for (let i = 0; i < node.length; i++) {
          if (isPresent(node[i]) === judgeWhenPresent)
            judgeField(out, field, doc, montoTotal, node[i], EMPTY_HOLDER, f.trail, i);
        }
      } else if (isObject(node)) {
        const value = node[seg];
        if (isPresent(value) === judgeWhenPresent) judgeField(out, field, doc, montoTotal, value, node, f.trail, seg);
      }
    }
  }
  return out;
}

/** One occurrence of a planned field (at `token` under `trail`) against its obligation code. */
function judgeField(
  out: Problem[],
  field: PlannedField,
  doc: JsonObject,
  montoTotal: Decimal,
  value: unknown,
  holder: JsonObject,
  trail: Trail | null,
  token: string | number,
): void {
  const { name, code, tipo } = field;
  const present = isPresent(value);
  if (code === 0 && present) {
    out.push(
      problem(
        trailPointer(trailTo(trail, token)),
        "prohibited",
        "error",
        `${name} must not appear in an e-CF of type ${tipo}`,
        `${name} no corresponde en un e-CF tipo ${tipo}`,
        `formato-ecf: ${name} (${tipo}: 0)`,
      ),
    );
  } else if (code === 1 && !present) {
    out.push(
      problem(
        trailPointer(trailTo(trail, token)),
        "required",
        "error",
        `${name} is required in an e-CF of type ${tipo}`,
        `${name} es obligatorio en un e-CF tipo ${tipo}`,
        `formato-ecf: ${name} (${tipo}: 1)`,
      ),
    );
  } else if (code === 2 && !present) {
    const cond = field.condition!;
    if (cond.applies({ doc, tipo, holder, montoTotal })) {
      out.push(
        problem(
          trailPointer(trailTo(trail, token)),
          "required",
          "error",
          `${name} is required when ${cond.en}`,
          `${name} es obligatorio cuando ${cond.es}`,
          `formato-ecf: ${name} (${tipo}: 2): ${cond.en}`,
        ),
      );
    }
  }
}

/** Dates: real calendar dates, and their order (formato-ecf validations of each date field). */
/** The dates' own checks; with no known type (a bad TipoeCF) all but the type's own (E33/E34). */
function dateProblems(doc: JsonObject, tipo: TipoeCF | undefined): Problem[] {
  const out: Problem[] = [];
  const idDoc = objAt(doc, "Encabezado", "IdDoc");
  const emision = textOf(objAt(doc, "Encabezado", "Emisor"), "FechaEmision");
  const dEmision = dayNumber(emision);
  const check = (
    pointer: string,
    field: string,
    value: string | undefined,
    cmp?: { op: ">=" | "<="; other: number | undefined; otherName: string },
  ) => {
    if (value === undefined) return;
    const d = dayNumber(value);
    if (d === undefined) {
      out.push(
        problem(
          pointer,
          "invalid_date",
          "error",
          `${field} must be a real date dd-MM-yyyy`,
          `${field} debe ser una fecha válida dd-MM-AAAA`,
          `formato-ecf: ${field} (fecha válida)`,
          { value },
        ),
      );
      return;
    }
    if (cmp && cmp.other !== undefined && !(cmp.op === ">=" ? d >= cmp.other : d <= cmp.other)) {
      const en = cmp.op === ">=" ? "on or after" : "on or before";
      const es = cmp.op === ">=" ? "igual o posterior a" : "igual o anterior a";
      out.push(
        problem(
          pointer,
          "invalid_date_order",
          "error",
          `${field} must be ${en} ${cmp.otherName}`,
          `${field} debe ser ${es} ${cmp.otherName}`,
          `formato-ecf: ${field}`,
          { value },
        ),
      );
    }
  };
  check("/Encabezado/Emisor/FechaEmision", "FechaEmision", emision);
  check(
    "/Encabezado/IdDoc/FechaVencimientoSecuencia",
    "FechaVencimientoSecuencia",
    textOf(idDoc, "FechaVencimientoSecuencia"),
    {
      op: ">=",
      other: dEmision,
      otherName: "FechaEmision",
    },
  );
  check("/Encabezado/IdDoc/FechaLimitePago", "FechaLimitePago", textOf(idDoc, "FechaLimitePago"), {
    op: ">=",
    other: dEmision,
    otherName: "FechaEmision",
  });
  const desde = textOf(idDoc, "FechaDesde");
  check("/Encabezado/IdDoc/FechaDesde", "FechaDesde", desde);
  check("/Encabezado/IdDoc/FechaHasta", "FechaHasta", textOf(idDoc, "FechaHasta"), {
    op: ">=",
    other: dayNumber(desde),
    otherName: "FechaDesde",
  });
  if (tipo === "33" || tipo === "34") {
    check(
      "/InformacionReferencia/FechaNCFModificado",
      "FechaNCFModificado",
      textOf(objAt(doc, "InformacionReferencia"), "FechaNCFModificado"),
      {
        op: "<=",
        other: dEmision,
        otherName: "FechaEmision",
      },
    );
  }
  return out;
}

/** RNC and e-NCF checks; with no known type, the e-NCF (whose type must match) is left out. */
function idProblems(doc: JsonObject, tipo: TipoeCF | undefined): Problem[] {
  const out: Problem[] = [];
  const emisor = objAt(doc, "Encabezado", "Emisor");
  const comprador = objAt(doc, "Encabezado", "Comprador");
  if (isPresent(emisor?.RNCEmisor))
    out.push(...rncProblems(emisor!.RNCEmisor, "/Encabezado/Emisor/RNCEmisor", "RNCEmisor"));
  if (isPresent(comprador?.RNCComprador))
    out.push(...rncProblems(comprador!.RNCComprador, "/Encabezado/Comprador/RNCComprador", "RNCComprador"));
  const otro = valueAt(doc, "InformacionReferencia", "RNCOtroContribuyente");
  if (isPresent(otro))
    out.push(...rncProblems(otro, "/InformacionReferencia/RNCOtroContribuyente", "RNCOtroContribuyente"));
  const encf = valueAt(doc, "Encabezado", "IdDoc", "eNCF");
  if (tipo && isPresent(encf)) out.push(...eNcfProblems(encf, tipo, "/Encabezado/IdDoc/eNCF"));
  return out;
}

/** E33/E34 against the modified receipt as our records know it (context.modifiedReceipt). */
function modifiedReceiptProblems(
  doc: JsonObject,
  tipo: TipoeCF,
  montoTotal: Decimal,
  context: ValidationContext,
): Problem[] {
  const m = context.modifiedReceipt;
  if (!m || (tipo !== "33" && tipo !== "34")) return [];
  const out: Problem[] = [];
  const ref = objAt(doc, "InformacionReferencia");
  const ncf = textOf(ref, "NCFModificado");
  if (ncf !== undefined && ncf !== m.eNCF) {
    out.push(
      problem(
        "/InformacionReferencia/NCFModificado",
        "invalid_reference",
        "error",
        `NCFModificado ${ncf} is not the receipt being modified (${m.eNCF})`,
        `NCFModificado ${ncf} no es el comprobante modificado (${m.eNCF})`,
        "formato-ecf: NCFModificado",
      ),
    );
  }
  const fecha = textOf(ref, "FechaNCFModificado");
  if (fecha !== undefined && m.fechaEmision !== undefined && fecha !== m.fechaEmision) {
    out.push(
      problem(
        "/InformacionReferencia/FechaNCFModificado",
        "invalid_reference",
        "error",
        `FechaNCFModificado must be the modified receipt's FechaEmision ${m.fechaEmision}`,
        `FechaNCFModificado debe ser la FechaEmision del comprobante modificado ${m.fechaEmision}`,
        "formato-ecf: FechaNCFModificado",
      ),
    );
  }
  // A note on an E32 of 250,000 DOP or more identifies the buyer too (formato-ecf RNCComprador c).
  const comprador = objAt(doc, "Encabezado", "Comprador");
  const modifiedTotal = parseDecimal(m.montoTotal);
  if (
    parseENcf(m.eNCF)?.tipo === "32" &&
    modifiedTotal &&
    isHighValueConsumo("32", modifiedTotal) &&
    !isPresent(comprador?.RNCComprador) &&
    !isPresent(comprador?.IdentificadorExtranjero)
  ) {
    out.push(
      problem(
        "/Encabezado/Comprador/RNCComprador",
        "required",
        "error",
        "A note on an E32 of 250,000.00 DOP or more must identify the buyer (RNCComprador or IdentificadorExtranjero)",
        "Una nota sobre una E32 de DOP 250,000.00 o más debe identificar al comprador (RNCComprador o IdentificadorExtranjero)",
        `formato-ecf: RNCComprador (${tipo}: 2, modifica E32 ≥ DOP$250,000.00)`,
      ),
    );
  }
  const codigo = codeOf(ref, "CodigoModificacion");
  if (!isCodigoModificacion(codigo) || !modifiedTotal) return out;
  const balance = availableBalance(m.montoTotal, m.acceptedNotes ?? [], {
    tipo,
    codigoModificacion: codigo,
    montoTotal: montoTotal,
  });
  const verdict = balance.proposal;
  if (verdict && !verdict.ok) {
    const texts: Record<string, [string, string]> = {
      already_annulled: [
        "The modified receipt was already annulled by a credit note",
        "El comprobante modificado ya fue anulado por una nota de crédito",
      ],
      annulment_after_partial_credit: [
        "A total annulment (CodigoModificacion 1) is not possible after a partial credit note (3)",
        "No procede una anulación total (CodigoModificacion 1) después de una nota de crédito parcial (3)",
      ],
      exceeds_available: [
        `The credit exceeds what remains of the modified receipt (${balance.available})`,
        `El crédito excede lo que resta del comprobante modificado (${balance.available})`,
      ],
      invalid_amount: [
        "The note's amount is not valid for its CodigoModificacion",
        "El monto de la nota no es válido para su CodigoModificacion",
      ],
    };
    const [en, es] = texts[verdict.reason] ?? ["The note is not allowed", "La nota no procede"];
    out.push(
      problem(
        "/Encabezado/Totales/MontoTotal",
        `credit_${verdict.reason}`,
        "error",
        en,
        es,
        "formato-ecf: MontoTotal (d) y nota 30",
        {
          ...balance,
          proposal: undefined,
          montoTotal: formatMoney(montoTotal),
        },
      ),
    );
  }
  return out;
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Validates and completes an e-CF request. Never throws: any JSON input (null, arrays, strings,
 * deep garbage) yields problems. `ok` is true when no problem is an error.
 */
export function validateEcf(input: unknown, context: ValidationContext): ValidationResult {
  try {
    return validateUnsafe(input, context);
  } catch (err) {
    // A bug here must not take a request down: report it as a problem.
    return {
      ok: false,
      document: {},
      problems: [
        problem(
          "",
          "internal_error",
          "error",
          `Validation failed unexpectedly: ${String(err)}`,
          `La validación falló inesperadamente: ${String(err)}`,
          jsonMappingRule("validateEcf reports every problem and never throws"),
        ),
      ],
    };
  }
}

function validateUnsafe(input: unknown, context: ValidationContext): ValidationResult {
  if (!isObject(input)) {
    return {
      ok: false,
      document: {},
      problems: [
        problem(
          "",
          "invalid_type",
          "error",
          "The e-CF must be a JSON object",
          "El e-CF debe ser un objeto JSON",
          jsonMappingRule("the e-CF is a JSON object mirroring the XML root ECF"),
        ),
      ],
    };
  }
  const dropped: string[] = [];
  const doc = cloneJson(input, dropped) as JsonObject;
  const problems: Problem[] = dropped.map((path) =>
    problem(
      path,
      "unknown_field",
      "error",
      "__proto__ is not an e-CF element",
      "__proto__ no es un elemento del e-CF",
      jsonMappingRule("keys are DGII element names"),
    ),
  );
  if (!isObject(doc.Encabezado)) {
    const wrongShape = isPresent(doc.Encabezado);
    problems.push(
      problem(
        "/Encabezado",
        wrongShape ? "invalid_type" : "required",
        "error",
        "Encabezado is required and must be an object",
        "Encabezado es obligatorio y debe ser un objeto",
        wrongShape
          ? jsonMappingRule("Encabezado is an object (formato-ecf: Encabezado (1))")
          : "formato-ecf: Encabezado (1)",
      ),
    );
  }
  if (!Array.isArray(doc.DetallesItems) || doc.DetallesItems.length === 0) {
    const missing = Array.isArray(doc.DetallesItems) || !isPresent(doc.DetallesItems);
    problems.push(
      problem(
        "/DetallesItems",
        missing ? "required" : "invalid_type",
        "error",
        "DetallesItems must be an array with at least one line",
        "DetallesItems debe ser una lista con al menos una línea",
        missing
          ? "formato-ecf: Detalle de Bienes o Servicios (1)"
          : jsonMappingRule("DetallesItems is the array of the XML's DetallesItems/Item"),
      ),
    );
  }
  const tipo = tipoFrom(doc, context);
  if (!tipo) {
    const raw = valueAt(doc, "Encabezado", "IdDoc", "TipoeCF");
    problems.push(
      problem(
        "/Encabezado/IdDoc/TipoeCF",
        isPresent(raw) ? "invalid_value" : "required",
        "error",
        "TipoeCF must be one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47",
        "TipoeCF debe ser uno de 31, 32, 33, 34, 41, 43, 44, 45, 46, 47",
        "formato-ecf: TipoeCF (1)",
        isPresent(raw) ? { value: raw } : undefined,
      ),
    );
    // Without a type the type's schema cannot be read, but the checks that need none still run:
    // a bad TipoeCF does not hide a bad RNC or date.
    problems.push(...idProblems(doc, undefined), ...dateProblems(doc, undefined));
    return { ok: false, document: doc, problems: dedupe(problems) };
  }

  const completion = complete(doc, tipo, context);
  const canonical = canonicalize(doc, tipo);
  const document = canonical.document;
  problems.push(...canonical.problems);
  problems.push(...checkStructure(document, tipo));
  problems.push(...obligationProblems(document, tipo, completion.montoTotal));
  problems.push(...completion.problems);
  problems.push(...idProblems(document, tipo));
  problems.push(...dateProblems(document, tipo));
  problems.push(...typeRules(document, tipo, completion.montoTotal));
  problems.push(...modifiedReceiptProblems(document, tipo, completion.montoTotal, context));
  const all = dedupe(problems);
  return { ok: !all.some((p) => p.severity === "error"), document, problems: all };
}
