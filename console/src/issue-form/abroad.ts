// What an invoice to or for someone abroad asks beyond its lines (formato-ecf, obligation matrices
// of E46 and E47): an export (E46) carries the buyer's country, the shipment (InformacionesAdicionales)
// and the transport (Transporte); a payment abroad (E47) withholds ISR on every line (Retencion,
// required for E47), at the rate of the case the owner picks (@ecf/shared/isr-abroad), applied
// half-up by the shared money functions. The export's figures (FOB, freight, insurance, other
// costs, and the CIF they add up to) are read by the UI kit's one parser and added exactly.
import { ISR_ABROAD_CASES } from "@ecf/shared/isr-abroad";
import { type Decimal, mul, parseDecimal, percentOf, roundHalfUp, formatDecimal, sum } from "@ecf/shared/money";
import { canonical, MONEY, money, parseNumber } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import { parseDay } from "../format.ts";
import type { FieldErrors, FieldProblem } from "./field-errors.ts";

const INFO = "/Encabezado/InformacionesAdicionales";
const TRANSPORTE = "/Encabezado/Transporte";

export interface AbroadForm {
  box: HTMLElement;
  /** Adds the type's data to `doc` (lines included); returns what could not be read. */
  apply(doc: Record<string, unknown>): FieldProblem[];
  bind(errors: FieldErrors): void;
}

const input = (name: string, attrs: Record<string, string> = {}) => h("input", { name, ...attrs });
const choice = (name: string, options: readonly (readonly [string, string])[]) =>
  h("select", { name }, h("option", { value: "" }, "—"), ...options.map(([v, t]) => h("option", { value: v }, t)));

/** The shipment and transport of an export, each optional as DGII's matrix for E46 has them. */
function exportForm(): AbroadForm {
  const pais = input("pais-comprador");
  const fecha = input("fecha-embarque", { inputmode: "numeric", placeholder: "dd-mm-aaaa" });
  const embarque = input("numero-embarque");
  const puerto = input("puerto-embarque");
  const destino = input("puerto-desembarque");
  const incoterm = choice("condiciones-entrega", INCOTERM_WORDS);
  const via = choice("via-transporte", [
    ["01", "Terrestre"],
    ["02", "Marítimo"],
    ["03", "Aérea"],
  ]);
  const paisDestino = input("pais-destino");
  const customs = customsFields();
  const figures = exportFigures();
  const box = h(
    "fieldset",
    { class: "abroad" },
    h("legend", {}, "Exportación"),
    field("País del comprador", pais),
    field("Fecha de embarque (opcional)", fecha, "dd-mm-aaaa"),
    field("Número de embarque (opcional)", embarque),
    field("Puerto de embarque (opcional)", puerto),
    field("Puerto de desembarque (opcional)", destino),
    field("Condiciones de entrega (opcional)", incoterm),
    field("Vía de transporte (opcional)", via),
    field("País de destino (opcional)", paisDestino),
    ...customs.fields,
    figures.box,
  );
  const apply = (doc: Record<string, unknown>) => {
    const encabezado = doc.Encabezado as Record<string, Record<string, unknown>>;
    const comprador = (encabezado.Comprador ??= {});
    if (pais.value.trim()) comprador.PaisComprador = pais.value.trim();
    const problems: FieldProblem[] = [];
    const when = fecha.value.trim();
    if (when && !parseDay(when))
      problems.push({ path: `${INFO}/FechaEmbarque`, messageEs: "Escriba la fecha como dd-mm-aaaa." });
    const read = figures.read();
    problems.push(...read.problems);
    const info = present({
      FechaEmbarque: when,
      NumeroEmbarque: embarque.value.trim(),
      NombrePuertoEmbarque: puerto.value.trim(),
      NombrePuertoDesembarque: destino.value.trim(),
      CondicionesEntrega: incoterm.value,
      ...customs.read(INFO),
      ...read.fields,
    });
    const transporte = present({
      ViaTransporte: via.value,
      PaisDestino: paisDestino.value.trim(),
      ...customs.read(TRANSPORTE),
    });
    if (info) encabezado.InformacionesAdicionales = info;
    if (transporte) encabezado.Transporte = transporte;
    return problems;
  };
  const bind = (errors: FieldErrors) => {
    errors.bind(pais, "/Encabezado/Comprador/PaisComprador");
    errors.bind(fecha, `${INFO}/FechaEmbarque`);
    errors.bind(embarque, `${INFO}/NumeroEmbarque`);
    errors.bind(puerto, `${INFO}/NombrePuertoEmbarque`);
    errors.bind(destino, `${INFO}/NombrePuertoDesembarque`);
    errors.bind(incoterm, `${INFO}/CondicionesEntrega`, INFO);
    errors.bind(via, `${TRANSPORTE}/ViaTransporte`, TRANSPORTE);
    errors.bind(paisDestino, `${TRANSPORTE}/PaisDestino`);
    customs.bind(errors);
    figures.bind(errors);
  };
  return { box, apply, bind };
}

/** The ISR withheld from a payment abroad: the rate applied to each line's amount. */
function paymentAbroadForm(): AbroadForm {
  const rate = h(
    "select",
    { name: "retencion-isr" },
    ...ISR_ABROAD_CASES.map((c) => h("option", { value: c.article }, c.label)),
  );
  const percent = () => parseDecimal(ISR_ABROAD_CASES.find((c) => c.article === rate.value)!.rate)!;
  const box = h("fieldset", { class: "abroad" }, h("legend", {}, "Pago al exterior"), field("Retención de ISR", rate));
  const apply = (doc: Record<string, unknown>) => {
    const items = doc.DetallesItems as Record<string, unknown>[];
    for (const item of items) {
      const qty = parseDecimal(item.CantidadItem);
      const price = parseDecimal(item.PrecioUnitarioItem);
      if (!qty || !price) continue;
      const withheld = roundHalfUp(percentOf(mul(qty, price), percent()));
      item.Retencion = { IndicadorAgenteRetencionoPercepcion: "1", MontoISRRetenido: formatDecimal(withheld, 2) };
    }
    return [];
  };
  return { box, apply, bind: (errors) => errors.bind(rate, "/Encabezado/Totales/TotalISRRetencion") };
}

/** The form of what E46 and E47 add; none for the other types. */
export function abroadForm(tipo: string): AbroadForm | undefined {
  if (tipo === "46") return exportForm();
  if (tipo === "47") return paymentAbroadForm();
  return undefined;
}

/** The fields that were filled, or undefined when none was (an empty group is not sent). */
function present(fields: Record<string, string>): Record<string, string> | undefined {
  const filled = Object.entries(fields).filter(([, v]) => v);
  return filled.length ? Object.fromEntries(filled) : undefined;
}

/** The Incoterms an exporter names most, in words. */
const INCOTERM_WORDS = [
  ["EXW", "En fábrica (EXW)"],
  ["FCA", "Franco transportista (FCA)"],
  ["FAS", "Franco al costado del buque (FAS)"],
  ["FOB", "Franco a bordo (FOB)"],
  ["CFR", "Costo y flete (CFR)"],
  ["CIF", "Costo, seguro y flete (CIF)"],
  ["CPT", "Transporte pagado hasta (CPT)"],
  ["CIP", "Transporte y seguro pagados hasta (CIP)"],
  ["DAP", "Entregado en lugar (DAP)"],
  ["DPU", "Entregado y descargado (DPU)"],
  ["DDP", "Entregado con derechos pagados (DDP)"],
] as const;

/**
 * The E46's other facts on the goods and their carriage (formato-ecf 67, 68, 79, 83, 84): group,
 * element, the control's name, its label, and the element's length.
 */
const CUSTOMS = [
  [TRANSPORTE, "PaisOrigen", "pais-origen", "País de origen de la mercancía (opcional)", 60],
  [INFO, "NombrePuertoSalida", "puerto-salida", "Puerto de salida, si no es el de embarque (opcional)", 40],
  [INFO, "RegimenAduanero", "regimen-aduanero", "Régimen aduanero (opcional)", 35],
  [TRANSPORTE, "NombreCompaniaTransportista", "transportista", "Compañía transportista (opcional)", 150],
  [TRANSPORTE, "NumeroViaje", "numero-viaje", "Número de viaje (opcional)", 20],
] as const;

/** The CUSTOMS fields: their controls, what each group gets from them, and where problems go. */
function customsFields() {
  const inputs = CUSTOMS.map(([, , name, , length]) => input(name, { maxlength: String(length) }));
  const read = (group: string) =>
    Object.fromEntries(
      CUSTOMS.flatMap(([at, element], i) => (at === group ? [[element, inputs[i]!.value.trim()]] : [])),
    ) as Record<string, string>;
  const bind = (errors: FieldErrors) =>
    CUSTOMS.forEach(([group, element], i) => errors.bind(inputs[i]!, `${group}/${element}`));
  return { fields: CUSTOMS.map(([, , , label], i) => field(label, inputs[i]!)), read, bind };
}

/** The export's amounts DGII's E46 has (formato-ecf 62 to 66), each more than 0 when given. */
const FIGURES = [
  ["TotalFob", "valor-fob", "Valor FOB (opcional)", "El valor FOB"],
  ["Flete", "flete", "Flete (opcional)", "El flete"],
  ["Seguro", "seguro", "Seguro (opcional)", "El seguro"],
  ["OtrosGastos", "otros-gastos", "Otros gastos hasta la aduana de destino (opcional)", "Los otros gastos"],
] as const;

/**
 * FOB, freight, insurance and other costs as typed, and the CIF they add up to (formato-ecf: "el
 * valor FOB, Flete, Seguro y otros gastos"), shown as it is computed and sent with the FOB.
 */
function exportFigures() {
  const inputs = FIGURES.map(([, name]) => input(name, { inputmode: "decimal" }));
  const cif = h("p", { class: "total-cif", "aria-live": "polite" });
  const box = h(
    "fieldset",
    { class: "figures" },
    h("legend", {}, "Valores de la exportación (RD$)"),
    ...FIGURES.map(([, , label], i) => field(label, inputs[i]!)),
    cif,
  );
  const read = () => {
    const problems: FieldProblem[] = [];
    const fields: Record<string, string> = {};
    const parts: Decimal[] = [];
    FIGURES.forEach(([element, , , what], i) => {
      const typed = inputs[i]!.value;
      if (!typed.trim()) return;
      const parsed = parseNumber(typed, { ...MONEY(what), sign: "positive" });
      if (!parsed.ok) return problems.push({ path: `${INFO}/${element}`, messageEs: parsed.error });
      fields[element] = canonical(parsed.value);
      parts.push(parsed.value);
    });
    const total = fields.TotalFob && parts.length > 1 ? formatDecimal(sum(parts), 2) : undefined;
    if (total) fields.TotalCif = total;
    cif.textContent = total ? `Valor CIF: ${money(total)}` : "";
    return { fields, problems };
  };
  const bind = (errors: FieldErrors) => {
    // The CIF is computed from the FOB and the rest: a problem with it is shown at the FOB.
    FIGURES.forEach(([element], i) =>
      errors.bind(inputs[i]!, `${INFO}/${element}`, ...(element === "TotalFob" ? [`${INFO}/TotalCif`] : [])),
    );
  };
  return { box, read, bind };
}
