/**
 * Per-type rules of the e-CF that the obligation matrix alone cannot express:
 * - `CONDITIONS`: for conditional fields (code 2) whose condition can be evaluated, a named
 *   predicate keyed by field path; when it holds and the field is missing, the field is required.
 * - `typeRules`: cross-field rules of each type (formato-ecf footnotes, informe-tecnico).
 */
import { decimalOf, codeOf, isObject, isPresent, objAt, objectsOf, textOf, type JsonObject } from "./totals-read.ts";
import { add, compare, dec, formatMoney, percentOf, roundHalfUp, sub, abs, sum, ZERO, type Decimal } from "./money.ts";
import { impuestoAdicional, UNIDAD_GRANEL, type ImpuestoAdicional } from "./catalogs.ts";
import { jsonPointer, problem, type Problem } from "./problems.ts";
import type { TipoeCF } from "./tipos.ts";
import { parseENcf } from "./ids.ts";
import { E32_RFCE_THRESHOLD, isUnderRfceThreshold } from "./rfce-threshold.ts";

/** What a condition sees: the whole document, its type, and the object holding the field. */
export interface ConditionInput {
  doc: JsonObject;
  tipo: TipoeCF;
  /** The object that holds (or would hold) the field: a line for item fields, a table row... */
  holder: JsonObject;
  /** MontoTotal of the document (computed), for the E32 threshold. */
  montoTotal: Decimal;
}

export interface Condition {
  /** Short English and Spanish statement of the condition, shown in the problem. */
  en: string;
  es: string;
  applies: (c: ConditionInput) => boolean;
}

const lines = (doc: JsonObject) => objectsOf(doc, "DetallesItems");
const anyLine = (doc: JsonObject, pred: (l: JsonObject) => boolean) => lines(doc).some(pred);
const indicador = (l: JsonObject) => codeOf(l, "IndicadorFacturacion");
/** Whether the line carries an additional tax for which `pred` holds (most lines carry none). */
const lineHasTax = (l: JsonObject, pred: (t: ImpuestoAdicional) => boolean) =>
  objectsOf(l, "TablaImpuestoAdicional").some((r) => {
    const t = impuestoAdicional(textOf(r, "TipoImpuesto"));
    return t !== undefined && pred(t);
  });

/** E32 at or above the threshold (or a note modifying such an E32, when its total is known). */
export function isHighValueConsumo(tipo: TipoeCF, montoTotal: Decimal): boolean {
  return tipo === "32" && !isUnderRfceThreshold(montoTotal);
}

const rowPresent: Condition = {
  en: "its table row is present",
  es: "la fila de la tabla está presente",
  applies: () => true,
};

export const CONDITIONS: Readonly<Record<string, Condition>> = {
  "Encabezado/IdDoc/FechaLimitePago": {
    en: "TipoPago is 2 (credit)",
    es: "TipoPago es 2 (crédito)",
    applies: ({ doc }) => codeOf(objAt(doc, "Encabezado", "IdDoc"), "TipoPago") === "2",
  },
  "Encabezado/IdDoc/IndicadorMontoGravado": {
    en: "a line is taxed with ITBIS at 18 % or 16 %",
    es: "una línea está gravada con ITBIS al 18 % o 16 %",
    applies: ({ doc }) => anyLine(doc, (l) => indicador(l) === "1" || indicador(l) === "2"),
  },
  "Encabezado/IdDoc/TablaFormasPago/FormaDePago/MontoPago": rowPresent,
  "Encabezado/Comprador/RazonSocialComprador": {
    en: "an E32 totals 250,000.00 DOP or more",
    es: "una E32 totaliza DOP 250,000.00 o más",
    applies: ({ tipo, montoTotal }) => isHighValueConsumo(tipo, montoTotal),
  },
  "Encabezado/OtraMoneda/TipoMoneda": {
    en: "OtraMoneda is present",
    es: "OtraMoneda está presente",
    applies: () => true,
  },
  "Encabezado/OtraMoneda/TipoCambio": {
    en: "OtraMoneda is present",
    es: "OtraMoneda está presente",
    applies: () => true,
  },
  "DetallesItems/Item/Retencion/IndicadorAgenteRetencionoPercepcion": {
    en: "Retencion is present",
    es: "Retencion está presente",
    applies: () => true,
  },
  "DetallesItems/Item/Retencion/MontoITBISRetenido": {
    en: "the line has a withholding (IndicadorAgenteRetencionoPercepcion 1)",
    es: "la línea tiene retención (IndicadorAgenteRetencionoPercepcion 1)",
    applies: ({ tipo, holder }) => tipo !== "47" && codeOf(holder, "IndicadorAgenteRetencionoPercepcion") === "1",
  },
  "DetallesItems/Item/Retencion/MontoISRRetenido": {
    en: "an E41 line with a withholding is a service (IndicadorBienoServicio 2)",
    es: "una línea E41 con retención es un servicio (IndicadorBienoServicio 2)",
    // The holder is the Retencion object; the line is found by identity.
    applies: ({ tipo, doc, holder }) =>
      tipo === "41" && lines(doc).some((l) => l.Retencion === holder && codeOf(l, "IndicadorBienoServicio") === "2"),
  },
  "DetallesItems/Item/DescuentoMonto": {
    en: "the line has sub-discounts",
    es: "la línea tiene subdescuentos",
    applies: ({ holder }) => objectsOf(holder, "TablaSubDescuento").length > 0,
  },
  "DetallesItems/Item/TablaSubDescuento": {
    en: "the line has a discount",
    es: "la línea tiene descuento",
    applies: ({ holder }) => compare(decimalOf(holder, "DescuentoMonto") ?? ZERO, ZERO) > 0,
  },
  "DetallesItems/Item/RecargoMonto": {
    en: "the line has sub-surcharges",
    es: "la línea tiene subrecargos",
    applies: ({ holder }) => objectsOf(holder, "TablaSubRecargo").length > 0,
  },
  "DetallesItems/Item/TablaSubRecargo": {
    en: "the line has a surcharge",
    es: "la línea tiene recargo",
    applies: ({ holder }) => compare(decimalOf(holder, "RecargoMonto") ?? ZERO, ZERO) > 0,
  },
  "DetallesItems/Item/TablaSubDescuento/SubDescuento/TipoSubDescuento": rowPresent,
  "DetallesItems/Item/TablaSubDescuento/SubDescuento/MontoSubDescuento": rowPresent,
  "DetallesItems/Item/TablaSubDescuento/SubDescuento/SubDescuentoPorcentaje": {
    en: "TipoSubDescuento is %",
    es: "TipoSubDescuento es %",
    applies: ({ holder }) => codeOf(holder, "TipoSubDescuento") === "%",
  },
  "DetallesItems/Item/TablaSubRecargo/SubRecargo/TipoSubRecargo": rowPresent,
  "DetallesItems/Item/TablaSubRecargo/SubRecargo/MontoSubRecargo": rowPresent,
  "DetallesItems/Item/TablaSubRecargo/SubRecargo/SubRecargoPorcentaje": {
    en: "TipoSubRecargo is %",
    es: "TipoSubRecargo es %",
    applies: ({ holder }) => codeOf(holder, "TipoSubRecargo") === "%",
  },
  "DetallesItems/Item/GradosAlcohol": {
    en: "the line carries alcohol ISC (codes 006-018, 023-035)",
    es: "la línea tiene ISC de alcoholes (códigos 006-018, 023-035)",
    applies: ({ holder }) =>
      lineHasTax(holder, (t) => Number(t.codigo) <= 18 && t.kind === "isc_especifico") &&
      codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL,
  },
  "DetallesItems/Item/CantidadReferencia": {
    en: "the line carries ISC (codes 006-039) and is not bulk",
    es: "la línea tiene ISC (códigos 006-039) y no es a granel",
    applies: ({ holder }) =>
      lineHasTax(holder, (t) => t.kind !== "otro") && codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL,
  },
  "DetallesItems/Item/PrecioUnitarioReferencia": {
    en: "the line carries ad valorem ISC and is not bulk",
    es: "la línea tiene ISC ad valorem y no es a granel",
    applies: ({ holder }) =>
      lineHasTax(holder, (t) => t.kind === "isc_advalorem") && codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL,
  },
  "DetallesItems/Item/OtraMonedaDetalle/PrecioOtraMoneda": {
    en: "OtraMonedaDetalle is present",
    es: "OtraMonedaDetalle está presente",
    applies: () => true,
  },
  "DetallesItems/Item/OtraMonedaDetalle/MontoItemOtraMoneda": {
    en: "OtraMonedaDetalle is present",
    es: "OtraMonedaDetalle está presente",
    applies: () => true,
  },
  "DescuentosORecargos/DescuentoORecargo/NumeroLinea": rowPresent,
  "DescuentosORecargos/DescuentoORecargo/TipoAjuste": rowPresent,
  "DescuentosORecargos/DescuentoORecargo/TipoValor": rowPresent,
  "DescuentosORecargos/DescuentoORecargo/MontoDescuentooRecargo": rowPresent,
  "DescuentosORecargos/DescuentoORecargo/IndicadorFacturacionDescuentooRecargo": rowPresent,
  "DescuentosORecargos/DescuentoORecargo/ValorDescuentooRecargo": {
    en: "TipoValor is %",
    es: "TipoValor es %",
    applies: ({ holder }) => codeOf(holder, "TipoValor") === "%",
  },
  "InformacionReferencia/NCFModificado": {
    en: "InformacionReferencia is present",
    es: "InformacionReferencia está presente",
    applies: () => true,
  },
  "InformacionReferencia/FechaNCFModificado": {
    en: "InformacionReferencia is present",
    es: "InformacionReferencia está presente",
    applies: () => true,
  },
  "InformacionReferencia/CodigoModificacion": {
    en: "InformacionReferencia is present",
    es: "InformacionReferencia está presente",
    applies: () => true,
  },
  "Paginacion/Pagina/PaginaNo": rowPresent,
  // formato-ecf 19: TotalPaginas counts the PaginaNo of Paginacion; Paginacion is there when the
  // e-CF has more than one page (note 77), which TotalPaginas (> 1) says.
  "Encabezado/IdDoc/TotalPaginas": {
    en: "Paginacion is present",
    es: "Paginacion está presente",
    applies: ({ doc }) => Array.isArray(doc.Paginacion) && doc.Paginacion.length > 0,
  },
  Paginacion: {
    en: "TotalPaginas says the e-CF has more than one page",
    es: "TotalPaginas indica que el e-CF tiene más de una página",
    applies: ({ doc }) => isPresent(objAt(doc, "Encabezado", "IdDoc")?.TotalPaginas),
  },
  "Paginacion/Pagina/NoLineaDesde": paginaNoPresent(),
  "Paginacion/Pagina/NoLineaHasta": {
    en: "NoLineaDesde is given",
    es: "NoLineaDesde está completado",
    applies: ({ holder }) => isPresent(holder.NoLineaDesde),
  },
  "Paginacion/Pagina/MontoSubtotalPagina": paginaNoPresent(),
  "DetallesItems/Item/UnidadReferencia": {
    en: "CantidadReferencia is given",
    es: "CantidadReferencia está completado",
    applies: ({ holder }) => isPresent(holder.CantidadReferencia),
  },
  // The table's text says codes 006-039, its Subcantidad field 006-022 (specific ISC, the only one
  // computed from it): required where both agree, and not for bulk (like CantidadReferencia).
  "DetallesItems/Item/TablaSubcantidad": {
    en: "the line carries specific ISC (codes 006-022) and is not bulk",
    es: "la línea tiene ISC específico (códigos 006-022) y no es a granel",
    applies: ({ holder }) =>
      lineHasTax(holder, (t) => t.kind === "isc_especifico") && codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL,
  },
  "DetallesItems/Item/TablaSubcantidad/SubcantidadItem/Subcantidad": rowPresent,
  "DetallesItems/Item/TablaSubcantidad/SubcantidadItem/CodigoSubcantidad": rowPresent,
  "DetallesItems/Item/TablaImpuestoAdicional/ImpuestoAdicional/TipoImpuesto": rowPresent,
  "Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/TipoImpuesto": rowPresent,
  "Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/TasaImpuestoAdicional": rowPresent,
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda/ImpuestoAdicionalOtraMoneda/TipoImpuestoOtraMoneda": rowPresent,
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda/ImpuestoAdicionalOtraMoneda/TasaImpuestoAdicionalOtraMoneda":
    rowPresent,
  // formato-ecf 21-24: the mining area, when present, is complete.
  "DetallesItems/Item/Mineria/PesoNetoKilogramo": mineriaPresent(),
  "DetallesItems/Item/Mineria/PesoNetoMineria": mineriaPresent(),
  "DetallesItems/Item/Mineria/TipoAfiliacion": mineriaPresent(),
  "DetallesItems/Item/Mineria/Liquidacion": mineriaPresent(),
};

/**
 * Why each conditional (code 2) field without a `CONDITIONS` entry has none, so the two lists
 * together cover every code-2 field of formato-ecf (a test keeps it so):
 * - `computed`: a total the service computes and fills (Totales, OtraMoneda) or a per-page
 *   subtotal of the printed representation; its condition is "there is such an amount".
 * - `presence`: the group's own presence is its condition (a table, an area, a row element).
 * - `type_rule`: the condition is checked by a cross-field rule (`typeRules` or the modified
 *   receipt checks in validate/field-checks.ts) rather than by one field's presence.
 * - `outside`: the condition depends on facts outside the document (DGII's authorisation, the
 *   modified receipt's issuer or buyer) or formato-ecf states none.
 */
export const UNCHECKED_CONDITIONALS: Readonly<Record<string, "computed" | "presence" | "type_rule" | "outside">> = {
  "Encabezado/IdDoc/IndicadorEnvioDiferido": "outside", // issuer authorised for deferred sending (DGII registry)
  "Encabezado/Comprador": "outside", // E33/E34: as the modified receipt had it
  "Encabezado/Comprador/RNCComprador": "type_rule", // E32 ≥ 250,000, notes on such an E32, E44 buyer
  "Encabezado/Comprador/IdentificadorExtranjero": "type_rule", // only with RNCComprador blank
  "Encabezado/Comprador/InformacionAdicionalComprador": "outside", // from the XSD; formato-ecf states no condition
  "Encabezado/Totales/MontoGravadoTotal": "computed",
  "Encabezado/Totales/MontoGravadoI1": "computed",
  "Encabezado/Totales/MontoGravadoI2": "computed",
  "Encabezado/Totales/MontoGravadoI3": "computed",
  "Encabezado/Totales/MontoExento": "computed",
  "Encabezado/Totales/ITBIS1": "computed",
  "Encabezado/Totales/ITBIS2": "computed",
  "Encabezado/Totales/ITBIS3": "computed",
  "Encabezado/Totales/TotalITBIS": "computed",
  "Encabezado/Totales/TotalITBIS1": "computed",
  "Encabezado/Totales/TotalITBIS2": "computed",
  "Encabezado/Totales/TotalITBIS3": "computed",
  "Encabezado/Totales/MontoImpuestoAdicional": "computed",
  "Encabezado/Totales/ImpuestosAdicionales": "computed",
  "Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional": "computed",
  "Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/MontoImpuestoSelectivoConsumoEspecifico": "computed",
  "Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/MontoImpuestoSelectivoConsumoAdvalorem": "computed",
  "Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/OtrosImpuestosAdicionales": "computed",
  "Encabezado/Totales/MontoNoFacturable": "computed",
  "Encabezado/Totales/TotalITBISRetenido": "computed",
  "Encabezado/Totales/TotalISRRetencion": "computed",
  "Encabezado/Totales/TotalITBISPercepcion": "computed", // carried over as sent (perception is not in force)
  "Encabezado/Totales/TotalISRPercepcion": "computed",
  "Encabezado/OtraMoneda": "presence",
  "Encabezado/OtraMoneda/MontoGravadoTotalOtraMoneda": "computed",
  "Encabezado/OtraMoneda/MontoGravado1OtraMoneda": "computed",
  "Encabezado/OtraMoneda/MontoGravado2OtraMoneda": "computed",
  "Encabezado/OtraMoneda/MontoGravado3OtraMoneda": "computed",
  "Encabezado/OtraMoneda/MontoExentoOtraMoneda": "computed",
  "Encabezado/OtraMoneda/TotalITBISOtraMoneda": "computed",
  "Encabezado/OtraMoneda/TotalITBIS1OtraMoneda": "computed",
  "Encabezado/OtraMoneda/TotalITBIS2OtraMoneda": "computed",
  "Encabezado/OtraMoneda/TotalITBIS3OtraMoneda": "computed",
  "Encabezado/OtraMoneda/MontoImpuestoAdicionalOtraMoneda": "computed",
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda": "computed",
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda/ImpuestoAdicionalOtraMoneda": "computed",
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda/ImpuestoAdicionalOtraMoneda/MontoImpuestoSelectivoConsumoEspecificoOtraMoneda":
    "computed",
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda/ImpuestoAdicionalOtraMoneda/MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda":
    "computed",
  "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda/ImpuestoAdicionalOtraMoneda/OtrosImpuestosAdicionalesOtraMoneda":
    "computed",
  "Encabezado/OtraMoneda/MontoTotalOtraMoneda": "computed",
  "DetallesItems/Item/Retencion": "presence", // "condicional a que exista retención"
  "DetallesItems/Item/TablaSubcantidad/SubcantidadItem": "presence",
  "DetallesItems/Item/Mineria": "presence", // mining-sector billing
  "DetallesItems/Item/TablaSubDescuento/SubDescuento": "presence",
  "DetallesItems/Item/TablaSubRecargo/SubRecargo": "presence",
  "DetallesItems/Item/TablaImpuestoAdicional": "presence", // the line carries additional taxes
  "DetallesItems/Item/TablaImpuestoAdicional/ImpuestoAdicional": "presence",
  "DetallesItems/Item/OtraMonedaDetalle": "presence",
  DescuentosORecargos: "presence", // global discounts or surcharges exist
  "DescuentosORecargos/DescuentoORecargo": "presence",
  "Paginacion/Pagina": "presence",
  "Paginacion/Pagina/SubtotalMontoGravadoPagina": "computed",
  "Paginacion/Pagina/SubtotalMontoGravado1Pagina": "computed",
  "Paginacion/Pagina/SubtotalMontoGravado2Pagina": "computed",
  "Paginacion/Pagina/SubtotalMontoGravado3Pagina": "computed",
  "Paginacion/Pagina/SubtotalExentoPagina": "computed",
  "Paginacion/Pagina/SubtotalItbisPagina": "computed",
  "Paginacion/Pagina/SubtotalItbis1Pagina": "computed",
  "Paginacion/Pagina/SubtotalItbis2Pagina": "computed",
  "Paginacion/Pagina/SubtotalItbis3Pagina": "computed",
  "Paginacion/Pagina/SubtotalImpuestoAdicionalPagina": "computed",
  "Paginacion/Pagina/SubtotalImpuestoAdicional": "computed",
  "Paginacion/Pagina/SubtotalImpuestoAdicional/SubtotalImpuestoSelectivoConsumoEspecificoPagina": "computed",
  "Paginacion/Pagina/SubtotalImpuestoAdicional/SubtotalOtrosImpuesto": "computed",
  "Paginacion/Pagina/SubtotalMontoNoFacturablePagina": "computed",
  InformacionReferencia: "outside", // outside notes: replacing a contingency receipt (code 4) or referencing an E32 (code 5)
  "InformacionReferencia/RNCOtroContribuyente": "outside", // the modified receipt's issuer differs (dissolved, merged)
};

function paginaNoPresent(): Condition {
  return {
    en: "PaginaNo is given",
    es: "PaginaNo está completado",
    applies: ({ holder }) => isPresent(holder.PaginaNo),
  };
}
function mineriaPresent(): Condition {
  return {
    en: "Mineria (mining sector billing) is present",
    es: "Mineria (facturación del sector minería) está presente",
    applies: () => true,
  };
}

/** Incoterms (ICC 2020, plus 2010/2000 terms still seen on customs forms) for CondicionesEntrega. */
export const INCOTERMS = [
  "EXW",
  "FCA",
  "FAS",
  "FOB",
  "CFR",
  "CIF",
  "CPT",
  "CIP",
  "DAP",
  "DPU",
  "DDP",
  "DAT",
  "DAF",
  "DES",
  "DEQ",
  "DDU",
] as const;

/** The IndicadorFacturacion a type forces on every line (formato-ecf notes 50-51). */
export const FORCED_INDICADOR: Partial<Record<TipoeCF, string>> = { "43": "4", "44": "4", "47": "4", "46": "3" };

/** Cross-field rules per type. `montoTotal` is the document's computed total. */
export function typeRules(doc: JsonObject, tipo: TipoeCF, montoTotal: Decimal): Problem[] {
  const items = lines(doc);
  return [
    ...forcedIndicadorProblems(items, tipo),
    ...buyerProblems(doc, tipo, montoTotal),
    ...referenceProblems(doc, tipo),
    ...(tipo === "46" ? exportProblems(doc) : []),
    ...withholdingProblems(items),
    ...sequenceProblems(doc),
    ...emptyReferenceProblems(doc),
  ];
}

/** E43, E44, E46, E47: every line carries the type's IndicadorFacturacion. */
function forcedIndicadorProblems(items: readonly JsonObject[], tipo: TipoeCF): Problem[] {
  const forced = FORCED_INDICADOR[tipo];
  if (!forced) return [];
  const [en, es, note] = forced === "4" ? ["exempt", "exento", 50] : ["ITBIS 0 %", "ITBIS 0 %", 51];
  const out: Problem[] = [];
  items.forEach((l, i) => {
    const ind = indicador(l);
    if (ind === undefined || ind === forced) return;
    out.push(
      problem(
        jsonPointer("DetallesItems", i, "IndicadorFacturacion"),
        "invalid_indicador_facturacion",
        "error",
        `An E${tipo} line must have IndicadorFacturacion ${forced} (${en})`,
        `Una línea de E${tipo} debe tener IndicadorFacturacion ${forced} (${es})`,
        `formato-ecf: IndicadorFacturacion (nota ${note})`,
        { value: ind, expected: forced },
      ),
    );
  });
  return out;
}

/** Who the buyer is: named on a high-value E32 and on an E44, by RNC or foreign id but not both. */
function buyerProblems(doc: JsonObject, tipo: TipoeCF, montoTotal: Decimal): Problem[] {
  const out: Problem[] = [];
  const comprador = objAt(doc, "Encabezado", "Comprador");
  const hasRnc = isPresent(comprador?.RNCComprador);
  const hasForeignId = isPresent(comprador?.IdentificadorExtranjero);
  // E32 ≥ 250,000: the buyer must be identified by RNC/cédula or, for foreigners, IdentificadorExtranjero.
  if (isHighValueConsumo(tipo, montoTotal) && !hasRnc && !hasForeignId) {
    out.push(
      problem(
        "/Encabezado/Comprador/RNCComprador",
        "required",
        "error",
        "An E32 of 250,000.00 DOP or more must identify the buyer (RNCComprador, or IdentificadorExtranjero for a foreigner)",
        "Una E32 de DOP 250,000.00 o más debe identificar al comprador (RNCComprador, o IdentificadorExtranjero si es extranjero)",
        "formato-ecf: RNCComprador (32: 2, ≥ DOP$250,000.00)",
        { montoTotal: formatMoney(montoTotal), threshold: formatMoney(E32_RFCE_THRESHOLD) },
      ),
    );
  }
  // IdentificadorExtranjero identifies a buyer without RNC/cédula: only with RNCComprador blank
  // (formato-ecf 39, b). An E44 buyer has one or the other (formato-ecf 38, note 5).
  if (hasForeignId && hasRnc) {
    out.push(
      problem(
        "/Encabezado/Comprador/IdentificadorExtranjero",
        "prohibited",
        "error",
        "IdentificadorExtranjero is only for a buyer without RNC/cédula: leave it out when RNCComprador is given",
        "IdentificadorExtranjero es solo para un comprador sin RNC/cédula: se omite cuando se completa RNCComprador",
        "formato-ecf: IdentificadorExtranjero (b: RNC Comprador está en blanco)",
      ),
    );
  }
  if (tipo === "44" && comprador && !hasRnc && !hasForeignId) {
    out.push(
      problem(
        "/Encabezado/Comprador/RNCComprador",
        "required",
        "error",
        "An E44 identifies its buyer: RNCComprador, or IdentificadorExtranjero for a foreign buyer (diplomat)",
        "Una E44 identifica al comprador: RNCComprador, o IdentificadorExtranjero si es extranjero (diplomático)",
        "formato-ecf: RNCComprador (44: 2, nota 5)",
      ),
    );
  }
  return out;
}

/** InformacionReferencia: codes 1-4 belong to notes (E33/E34), code 5 to an E31 that references an E32. */
function referenceProblems(doc: JsonObject, tipo: TipoeCF): Problem[] {
  const ref = objAt(doc, "InformacionReferencia");
  const codigo = codeOf(ref, "CodigoModificacion");
  if (!ref || codigo === undefined) return [];
  const ncf = textOf(ref, "NCFModificado");
  return [
    codigoModificacionProblem(codigo, tipo),
    ...(ncf === undefined ? [] : [ncfModificadoForCodigo(ncf, codigo, tipo), ncfModificadoFormat(ncf)]),
  ].filter((p): p is Problem => p !== undefined);
}

const CODIGO_PATH = "/InformacionReferencia/CodigoModificacion";
const NCF_PATH = "/InformacionReferencia/NCFModificado";

/** Code 5 only on an E31, code 4 on any type (it replaces a contingency receipt), the others only on notes. */
function codigoModificacionProblem(codigo: string, tipo: TipoeCF): Problem | undefined {
  if (tipo !== "31" && codigo === "5") {
    return problem(
      CODIGO_PATH,
      "invalid_codigo_modificacion",
      "error",
      "CodigoModificacion 5 (consumer invoice reference) is only for an E31",
      "El CodigoModificacion 5 (referencia a factura de consumo) solo aplica a una E31",
      "formato-ecf: CodigoModificacion (e, nota 81)",
      { value: codigo },
    );
  }
  if (codigo !== "5" && tipo !== "33" && tipo !== "34" && codigo !== "4") {
    return problem(
      CODIGO_PATH,
      "invalid_codigo_modificacion",
      "error",
      `CodigoModificacion ${codigo} is only for debit and credit notes (E33, E34)`,
      `El CodigoModificacion ${codigo} solo aplica a notas de débito y crédito (E33, E34)`,
      "formato-ecf: CodigoModificacion",
      { value: codigo },
    );
  }
  return undefined;
}

/** What the referenced receipt must be for codes 4 and 5. */
function ncfModificadoForCodigo(ncf: string, codigo: string, tipo: TipoeCF): Problem | undefined {
  // Code 4 replaces a serie B receipt issued in contingency by the e-CF of the equivalent type
  // (B01 → E31 … B17 → E47: the e-CF type is the paper type + 30).
  const paperType = String(Number(tipo) - 30).padStart(2, "0");
  if (codigo === "4" && !new RegExp(`^B${paperType}\\d{8}$`).test(ncf)) {
    return problem(
      NCF_PATH,
      "invalid_reference",
      "error",
      "With CodigoModificacion 4 NCFModificado must be the serie B receipt issued in contingency of the equivalent " +
        `type (B${paperType} for an E${tipo})`,
      "Con CodigoModificacion 4 el NCFModificado debe ser el comprobante serie B emitido en contingencia del tipo " +
        `equivalente (B${paperType} para una E${tipo})`,
      "formato-ecf: NCFModificado (b: código de modificación 4, tipo equivalente)",
      { value: ncf, expected: `B${paperType}` },
    );
  }
  if (codigo === "5" && tipo === "31" && parseENcf(ncf)?.tipo !== "32") {
    return problem(
      NCF_PATH,
      "invalid_reference",
      "error",
      "With CodigoModificacion 5 NCFModificado must be an E32 (consumer invoice)",
      "Con CodigoModificacion 5 el NCFModificado debe ser una E32 (factura de consumo)",
      "formato-ecf: CodigoModificacion (e)",
      { value: ncf },
    );
  }
  return undefined;
}

/** Serie E (13), serie B (11), and the older serie A and P (19) (informe-tecnico note 44). */
function ncfModificadoFormat(ncf: string): Problem | undefined {
  if (/^(E\d{12}|[A-Z]\d{10}|[AP]\d{18})$/.test(ncf)) return undefined;
  return problem(
    NCF_PATH,
    "invalid_encf",
    "error",
    "NCFModificado must be an e-NCF (E + 12 digits), an NCF (letter + 10 digits) " +
      "or a serie A/P NCF (letter + 18 digits)",
    "NCFModificado debe ser un e-NCF (E + 12 dígitos), un NCF (letra + 10 dígitos) " +
      "o un NCF serie A/P (letra + 18 dígitos)",
    "formato-ecf: NCFModificado (nota 79)",
    { value: ncf },
  );
}

/** E46: Incoterm and CIF = FOB + insurance + freight + other costs. */
function exportProblems(doc: JsonObject): Problem[] {
  const out: Problem[] = [];
  const info = objAt(doc, "Encabezado", "InformacionesAdicionales");
  const incoterm = textOf(info, "CondicionesEntrega");
  if (incoterm !== undefined && !(INCOTERMS as readonly string[]).includes(incoterm.toUpperCase())) {
    out.push(
      problem(
        "/Encabezado/InformacionesAdicionales/CondicionesEntrega",
        "unknown_incoterm",
        "warning",
        `CondicionesEntrega ${incoterm} is not an Incoterm`,
        `CondicionesEntrega ${incoterm} no es un Incoterm`,
        "formato-ecf: CondicionesEntrega (46: 3)",
        { value: incoterm, known: INCOTERMS },
      ),
    );
  }
  const fob = decimalOf(info, "TotalFob");
  const cif = decimalOf(info, "TotalCif");
  if (!fob || !cif) return out;
  const expected = sum([
    fob,
    decimalOf(info, "Seguro") ?? ZERO,
    decimalOf(info, "Flete") ?? ZERO,
    decimalOf(info, "OtrosGastos") ?? ZERO,
  ]);
  if (compare(abs(sub(cif, expected)), dec("0.01")) > 0) {
    out.push(
      problem(
        "/Encabezado/InformacionesAdicionales/TotalCif",
        "inconsistent_total",
        "warning",
        "TotalCif should be TotalFob + Seguro + Flete + OtrosGastos",
        "TotalCif debería ser TotalFob + Seguro + Flete + OtrosGastos",
        "formato-ecf: TotalCif (46: 3)",
        { sent: formatMoney(cif), computed: formatMoney(expected) },
      ),
    );
  }
  return out;
}

/**
 * Withholdings: no ITBIS to withhold on a 0 % or exempt line (formato-ecf note 53), never more
 * than the line's ITBIS, and ISR never more than the line amount.
 */
function withholdingProblems(items: readonly JsonObject[]): Problem[] {
  const out: Problem[] = [];
  items.forEach((l, i) => {
    const ret = objAt(l, "Retencion");
    if (!ret) return;
    const ind = indicador(l);
    const itbisRetenido = decimalOf(ret, "MontoITBISRetenido");
    const montoItem = decimalOf(l, "MontoItem");
    const at = (k: string) => jsonPointer("DetallesItems", i, "Retencion", k);
    if (itbisRetenido && (ind === "3" || ind === "4") && compare(itbisRetenido, ZERO) > 0) {
      out.push(
        problem(
          at("MontoITBISRetenido"),
          "invalid_withholding",
          "error",
          "A line at 0 % or exempt has no ITBIS to withhold: MontoITBISRetenido must be 0.00",
          "Una línea al 0 % o exenta no tiene ITBIS que retener: MontoITBISRetenido debe ser 0.00",
          "formato-ecf: MontoITBISRetenido (nota 53)",
          { value: formatMoney(itbisRetenido) },
        ),
      );
    } else if (itbisRetenido && montoItem && (ind === "1" || ind === "2")) {
      const itbis = roundHalfUp(percentOf(montoItem, dec(ind === "1" ? "18" : "16")));
      if (compare(itbisRetenido, add(itbis, dec("1.00"))) > 0) {
        out.push(
          problem(
            at("MontoITBISRetenido"),
            "invalid_withholding",
            "warning",
            `MontoITBISRetenido exceeds the line's ITBIS (${formatMoney(itbis)})`,
            `MontoITBISRetenido excede el ITBIS de la línea (${formatMoney(itbis)})`,
            "formato-ecf: MontoITBISRetenido",
            { value: formatMoney(itbisRetenido), itbis: formatMoney(itbis) },
          ),
        );
      }
    }
    const isr = decimalOf(ret, "MontoISRRetenido");
    if (isr && montoItem && compare(isr, montoItem) > 0) {
      out.push(
        problem(
          at("MontoISRRetenido"),
          "invalid_withholding",
          "warning",
          "MontoISRRetenido exceeds the line amount",
          "MontoISRRetenido excede el monto de la línea",
          "formato-ecf: MontoISRRetenido",
          { value: formatMoney(isr), montoItem: formatMoney(montoItem) },
        ),
      );
    }
  });
  return out;
}

/** Table rows that must be non-empty objects (a row given as a string is reported by the structure check). */
function emptyReferenceProblems(doc: JsonObject): Problem[] {
  if (!isObject(doc.InformacionReferencia) || Object.keys(doc.InformacionReferencia).length > 0) return [];
  const rule = "formato-ecf: InformacionReferencia";
  return [
    problem(
      "/InformacionReferencia",
      "required",
      "error",
      "InformacionReferencia is empty",
      "InformacionReferencia está vacía",
      rule,
    ),
  ];
}

/** A whole number as written (structure checks report anything else), or undefined. */
function wholeNumber(v: unknown): number | undefined {
  const t = typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : undefined;
  return t !== undefined && /^\d{1,6}$/.test(t) ? Number(t) : undefined;
}

/**
 * Numbering the client sends must be DGII's: `NumeroLinea` of the lines and of the global
 * discounts/surcharges, and `PaginaNo`, run 1..n in order (formato-ecf "número secuencial");
 * `TotalPaginas` is the number of pages; a page's `NoLineaDesde` ≤ `NoLineaHasta` ≤ last line.
 */
export function sequenceProblems(doc: JsonObject): Problem[] {
  return [
    ...outOfSequence(
      doc,
      "DetallesItems",
      "NumeroLinea",
      "formato-ecf: NumeroLinea (detalle, a: número secuencial de la línea, 1 a 1000)",
    ),
    ...outOfSequence(
      doc,
      "DescuentosORecargos",
      "NumeroLinea",
      "formato-ecf: NumeroLinea (descuentos o recargos, a: número secuencial, 1 a 20)",
    ),
    ...outOfSequence(doc, "Paginacion", "PaginaNo", "formato-ecf: PaginaNo (b: en orden secuencial)"),
    ...pageCountProblems(doc),
    ...pageRangeProblems(doc),
  ];
}

/** The rows of `container` whose `field` is not their place in it (1..n). */
function outOfSequence(doc: JsonObject, container: string, field: string, rule: string): Problem[] {
  const rows = doc[container];
  if (!Array.isArray(rows)) return [];
  const out: Problem[] = [];
  rows.forEach((row, i) => {
    if (!isObject(row)) return;
    const n = wholeNumber(row[field]);
    if (n !== undefined && n !== i + 1) {
      out.push(
        problem(
          jsonPointer(container, i, field),
          "invalid_sequence",
          "error",
          `${field} must be ${i + 1}: ${container} is numbered 1 to ${rows.length} in order`,
          `${field} debe ser ${i + 1}: ${container} se numera de 1 a ${rows.length} en orden`,
          rule,
          { sent: textOf(row, field) ?? row[field], expected: String(i + 1) },
        ),
      );
    }
  });
  return out;
}

/** TotalPaginas, when sent beside pages, counts them. */
function pageCountProblems(doc: JsonObject): Problem[] {
  const pages = Array.isArray(doc.Paginacion) ? doc.Paginacion : [];
  const totalPaginas = wholeNumber(objAt(doc, "Encabezado", "IdDoc")?.TotalPaginas);
  if (totalPaginas === undefined || pages.length === 0 || totalPaginas === pages.length) return [];
  return [
    problem(
      "/Encabezado/IdDoc/TotalPaginas",
      "inconsistent_value",
      "error",
      `TotalPaginas must be ${pages.length}, the number of pages in Paginacion`,
      `TotalPaginas debe ser ${pages.length}, el número de páginas en Paginacion`,
      "formato-ecf: TotalPaginas (b: total de veces que se repite PaginaNo)",
      { sent: String(totalPaginas), expected: String(pages.length) },
    ),
  ];
}

/** Each page runs from a line of the document to a later (or the same) one. */
function pageRangeProblems(doc: JsonObject): Problem[] {
  const pages = Array.isArray(doc.Paginacion) ? doc.Paginacion : [];
  const lineCount = Array.isArray(doc.DetallesItems) ? doc.DetallesItems.length : 0;
  const out: Problem[] = [];
  pages.forEach((page, i) => {
    if (!isObject(page)) return;
    const desde = wholeNumber(page.NoLineaDesde);
    const hasta = wholeNumber(page.NoLineaHasta);
    if (desde !== undefined && hasta !== undefined && desde > hasta) {
      out.push(
        problem(
          jsonPointer("Paginacion", i, "NoLineaDesde"),
          "invalid_range",
          "error",
          "NoLineaDesde must not be greater than NoLineaHasta",
          "NoLineaDesde no puede ser mayor que NoLineaHasta",
          "formato-ecf: NoLineaDesde (c: ≤ NoLineaHasta)",
          { NoLineaDesde: String(desde), NoLineaHasta: String(hasta) },
        ),
      );
    }
    for (const [field, n] of [
      ["NoLineaDesde", desde],
      ["NoLineaHasta", hasta],
    ] as const) {
      if (n !== undefined && lineCount > 0 && (n < 1 || n > lineCount)) {
        out.push(
          problem(
            jsonPointer("Paginacion", i, field),
            "invalid_range",
            "error",
            `${field} must be a line of the document (1 to ${lineCount})`,
            `${field} debe ser una línea del documento (1 a ${lineCount})`,
            `formato-ecf: ${field} (a: número de línea de un ítem; > 0)`,
            { sent: String(n), lines: lineCount },
          ),
        );
      }
    }
  });
  return out;
}
