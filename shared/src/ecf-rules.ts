/**
 * Per-type rules of the e-CF that the obligation matrix alone cannot express:
 * - `CONDITIONS`: for conditional fields (code 2) whose condition can be evaluated, a named
 *   predicate keyed by field path; when it holds and the field is missing, the field is required.
 * - `typeRules`: cross-field rules of each type (formato-ecf footnotes, informe-tecnico).
 */
import { decimalOf, codeOf, isObject, isPresent, objAt, objectsOf, textOf, type JsonObject } from "./totals-read.ts";
import { add, compare, dec, formatMoney, percentOf, roundHalfUp, sub, abs, sum, ZERO, type Decimal } from "./money.ts";
import { impuestoAdicional, UNIDAD_GRANEL } from "./catalogs.ts";
import { jsonPointer, type Problem, type Severity } from "./problems.ts";
import type { TipoeCF } from "./tipos.ts";
import { parseENcf } from "./ids.ts";

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

/** E32 at or above this amount is sent whole to DGII and identifies the buyer; below, DGII gets the RFCE summary. */
export const E32_RFCE_THRESHOLD: Decimal = dec("250000.00");

const lines = (doc: JsonObject) => objectsOf(doc, "DetallesItems");
const anyLine = (doc: JsonObject, pred: (l: JsonObject) => boolean) => lines(doc).some(pred);
const indicador = (l: JsonObject) => codeOf(l, "IndicadorFacturacion");
const lineTaxKinds = (l: JsonObject) =>
  objectsOf(l, "TablaImpuestoAdicional")
    .map((r) => impuestoAdicional(textOf(r, "TipoImpuesto")))
    .filter((t) => t !== undefined);

/** E32 at or above the threshold (or a note modifying such an E32, when its total is known). */
export function isHighValueConsumo(tipo: TipoeCF, montoTotal: Decimal): boolean {
  return tipo === "32" && compare(montoTotal, E32_RFCE_THRESHOLD) >= 0;
}

const rowPresent: Condition = { en: "its table row is present", es: "la fila de la tabla está presente", applies: () => true };

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
  "Encabezado/OtraMoneda/TipoMoneda": { en: "OtraMoneda is present", es: "OtraMoneda está presente", applies: () => true },
  "Encabezado/OtraMoneda/TipoCambio": { en: "OtraMoneda is present", es: "OtraMoneda está presente", applies: () => true },
  "DetallesItems/Item/Retencion/IndicadorAgenteRetencionoPercepcion": { en: "Retencion is present", es: "Retencion está presente", applies: () => true },
  "DetallesItems/Item/Retencion/MontoITBISRetenido": {
    en: "the line has a withholding (IndicadorAgenteRetencionoPercepcion 1)",
    es: "la línea tiene retención (IndicadorAgenteRetencionoPercepcion 1)",
    applies: ({ tipo, holder }) => tipo !== "47" && codeOf(holder, "IndicadorAgenteRetencionoPercepcion") === "1",
  },
  "DetallesItems/Item/Retencion/MontoISRRetenido": {
    en: "an E41 line with a withholding is a service (IndicadorBienoServicio 2)",
    es: "una línea E41 con retención es un servicio (IndicadorBienoServicio 2)",
    // The holder is the Retencion object; the line is found by identity.
    applies: ({ tipo, doc, holder }) => tipo === "41" && lines(doc).some((l) => l.Retencion === holder && codeOf(l, "IndicadorBienoServicio") === "2"),
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
    applies: ({ holder }) => codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL && lineTaxKinds(holder).some((t) => Number(t.codigo) <= 18 && t.kind === "isc_especifico"),
  },
  "DetallesItems/Item/CantidadReferencia": {
    en: "the line carries ISC (codes 006-039) and is not bulk",
    es: "la línea tiene ISC (códigos 006-039) y no es a granel",
    applies: ({ holder }) => codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL && lineTaxKinds(holder).some((t) => t.kind !== "otro"),
  },
  "DetallesItems/Item/PrecioUnitarioReferencia": {
    en: "the line carries ad valorem ISC and is not bulk",
    es: "la línea tiene ISC ad valorem y no es a granel",
    applies: ({ holder }) => codeOf(holder, "UnidadMedida") !== UNIDAD_GRANEL && lineTaxKinds(holder).some((t) => t.kind === "isc_advalorem"),
  },
  "DetallesItems/Item/OtraMonedaDetalle/PrecioOtraMoneda": { en: "OtraMonedaDetalle is present", es: "OtraMonedaDetalle está presente", applies: () => true },
  "DetallesItems/Item/OtraMonedaDetalle/MontoItemOtraMoneda": { en: "OtraMonedaDetalle is present", es: "OtraMonedaDetalle está presente", applies: () => true },
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
  "InformacionReferencia/NCFModificado": { en: "InformacionReferencia is present", es: "InformacionReferencia está presente", applies: () => true },
  "InformacionReferencia/FechaNCFModificado": { en: "InformacionReferencia is present", es: "InformacionReferencia está presente", applies: () => true },
  "InformacionReferencia/CodigoModificacion": { en: "InformacionReferencia is present", es: "InformacionReferencia está presente", applies: () => true },
  "Paginacion/Pagina/PaginaNo": rowPresent,
};

function problem(path: string, code: string, severity: Severity, message: string, messageEs: string, rule: string, details?: Record<string, unknown>): Problem {
  const p: Problem = { path, code, message, messageEs, severity, rule };
  if (details) p.details = details;
  return p;
}

/** Incoterms (ICC 2020, plus 2010/2000 terms still seen on customs forms) for CondicionesEntrega. */
export const INCOTERMS = ["EXW", "FCA", "FAS", "FOB", "CFR", "CIF", "CPT", "CIP", "DAP", "DPU", "DDP", "DAT", "DAF", "DES", "DEQ", "DDU"] as const;

/** The IndicadorFacturacion a type forces on every line (formato-ecf notes 50-51). */
export const FORCED_INDICADOR: Partial<Record<TipoeCF, string>> = { "43": "4", "44": "4", "47": "4", "46": "3" };

/** Cross-field rules per type. `montoTotal` is the document's computed total. */
export function typeRules(doc: JsonObject, tipo: TipoeCF, montoTotal: Decimal): Problem[] {
  const out: Problem[] = [];
  const items = lines(doc);

  const forced = FORCED_INDICADOR[tipo];
  if (forced) {
    items.forEach((l, i) => {
      const ind = indicador(l);
      if (ind !== undefined && ind !== forced) {
        out.push(
          problem(
            jsonPointer("DetallesItems", i, "IndicadorFacturacion"),
            "invalid_indicador_facturacion",
            "error",
            `An E${tipo} line must have IndicadorFacturacion ${forced} (${forced === "4" ? "exempt" : "ITBIS 0 %"})`,
            `Una línea de E${tipo} debe tener IndicadorFacturacion ${forced} (${forced === "4" ? "exento" : "ITBIS 0 %"})`,
            `formato-ecf: IndicadorFacturacion (nota ${forced === "4" ? 50 : 51})`,
            { value: ind, expected: forced },
          ),
        );
      }
    });
  }

  // E32 ≥ 250,000: the buyer must be identified by RNC/cédula or, for foreigners, IdentificadorExtranjero.
  const comprador = objAt(doc, "Encabezado", "Comprador");
  if (isHighValueConsumo(tipo, montoTotal) && !isPresent(comprador?.RNCComprador) && !isPresent(comprador?.IdentificadorExtranjero)) {
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

  // InformacionReferencia: codes 1-4 belong to notes (E33/E34), code 5 to an E31 that references an E32.
  const ref = objAt(doc, "InformacionReferencia");
  const codigo = codeOf(ref, "CodigoModificacion");
  if (ref && codigo !== undefined) {
    const ncf = textOf(ref, "NCFModificado");
    if ((tipo === "33" || tipo === "34") && codigo === "5") {
      out.push(problem("/InformacionReferencia/CodigoModificacion", "invalid_codigo_modificacion", "error", "CodigoModificacion 5 (consumer invoice reference) is only for an E31", "El CodigoModificacion 5 (referencia a factura de consumo) solo aplica a una E31", "formato-ecf: CodigoModificacion (e)", { value: codigo }));
    }
    if (codigo === "5" && tipo === "31" && ncf !== undefined && parseENcf(ncf)?.tipo !== "32") {
      out.push(problem("/InformacionReferencia/NCFModificado", "invalid_reference", "error", "With CodigoModificacion 5 NCFModificado must be an E32 (consumer invoice)", "Con CodigoModificacion 5 el NCFModificado debe ser una E32 (factura de consumo)", "formato-ecf: CodigoModificacion (e)", { value: ncf }));
    }
    if (codigo !== "5" && tipo !== "33" && tipo !== "34" && codigo !== "4") {
      out.push(problem("/InformacionReferencia/CodigoModificacion", "invalid_codigo_modificacion", "error", `CodigoModificacion ${codigo} is only for debit and credit notes (E33, E34)`, `El CodigoModificacion ${codigo} solo aplica a notas de débito y crédito (E33, E34)`, "formato-ecf: CodigoModificacion", { value: codigo }));
    }
    if (ncf !== undefined && !/^(E\d{12}|[A-Z]\d{10})$/.test(ncf)) {
      out.push(problem("/InformacionReferencia/NCFModificado", "invalid_encf", "error", "NCFModificado must be an e-NCF (E + 12 digits) or an NCF (letter + 10 digits)", "NCFModificado debe ser un e-NCF (E + 12 dígitos) o un NCF (letra + 10 dígitos)", "formato-ecf: NCFModificado", { value: ncf }));
    }
  }

  // E46: Incoterm and CIF = FOB + insurance + freight + other costs.
  if (tipo === "46") {
    const info = objAt(doc, "Encabezado", "InformacionesAdicionales");
    const incoterm = textOf(info, "CondicionesEntrega");
    if (incoterm !== undefined && !(INCOTERMS as readonly string[]).includes(incoterm.toUpperCase())) {
      out.push(problem("/Encabezado/InformacionesAdicionales/CondicionesEntrega", "unknown_incoterm", "warning", `CondicionesEntrega ${incoterm} is not an Incoterm`, `CondicionesEntrega ${incoterm} no es un Incoterm`, "formato-ecf: CondicionesEntrega (46: 3)", { value: incoterm, known: INCOTERMS }));
    }
    const fob = decimalOf(info, "TotalFob");
    const cif = decimalOf(info, "TotalCif");
    if (fob && cif) {
      const expected = sum([fob, decimalOf(info, "Seguro") ?? ZERO, decimalOf(info, "Flete") ?? ZERO, decimalOf(info, "OtrosGastos") ?? ZERO]);
      if (compare(abs(sub(cif, expected)), dec("0.01")) > 0) {
        out.push(problem("/Encabezado/InformacionesAdicionales/TotalCif", "inconsistent_total", "warning", "TotalCif should be TotalFob + Seguro + Flete + OtrosGastos", "TotalCif debería ser TotalFob + Seguro + Flete + OtrosGastos", "formato-ecf: TotalCif (46: 3)", { sent: formatMoney(cif), computed: formatMoney(expected) }));
      }
    }
  }

  // Withholdings: no ITBIS to withhold on a 0 % or exempt line (formato-ecf note 53), never more
  // than the line's ITBIS, and ISR never more than the line amount.
  items.forEach((l, i) => {
    const ret = objAt(l, "Retencion");
    if (!ret) return;
    const ind = indicador(l);
    const itbisRetenido = decimalOf(ret, "MontoITBISRetenido");
    const montoItem = decimalOf(l, "MontoItem");
    const at = (k: string) => jsonPointer("DetallesItems", i, "Retencion", k);
    if (itbisRetenido && (ind === "3" || ind === "4") && compare(itbisRetenido, ZERO) > 0) {
      out.push(problem(at("MontoITBISRetenido"), "invalid_withholding", "error", "A line at 0 % or exempt has no ITBIS to withhold: MontoITBISRetenido must be 0.00", "Una línea al 0 % o exenta no tiene ITBIS que retener: MontoITBISRetenido debe ser 0.00", "formato-ecf: MontoITBISRetenido (nota 53)", { value: formatMoney(itbisRetenido) }));
    } else if (itbisRetenido && montoItem && (ind === "1" || ind === "2")) {
      const itbis = roundHalfUp(percentOf(montoItem, dec(ind === "1" ? "18" : "16")));
      if (compare(itbisRetenido, add(itbis, dec("1.00"))) > 0) {
        out.push(problem(at("MontoITBISRetenido"), "invalid_withholding", "warning", `MontoITBISRetenido exceeds the line's ITBIS (${formatMoney(itbis)})`, `MontoITBISRetenido excede el ITBIS de la línea (${formatMoney(itbis)})`, "formato-ecf: MontoITBISRetenido", { value: formatMoney(itbisRetenido), itbis: formatMoney(itbis) }));
      }
    }
    const isr = decimalOf(ret, "MontoISRRetenido");
    if (isr && montoItem && compare(isr, montoItem) > 0) {
      out.push(problem(at("MontoISRRetenido"), "invalid_withholding", "warning", "MontoISRRetenido exceeds the line amount", "MontoISRRetenido excede el monto de la línea", "formato-ecf: MontoISRRetenido", { value: formatMoney(isr), montoItem: formatMoney(montoItem) }));
    }
  });

  // Table rows that must be non-empty objects (a row given as a string is reported by the structure check).
  if (isObject(doc.InformacionReferencia) && Object.keys(doc.InformacionReferencia).length === 0) {
    out.push(problem("/InformacionReferencia", "required", "error", "InformacionReferencia is empty", "InformacionReferencia está vacía", "formato-ecf: InformacionReferencia"));
  }
  return out;
}
