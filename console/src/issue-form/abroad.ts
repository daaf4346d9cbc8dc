// What an invoice to or for someone abroad asks beyond its lines (formato-ecf, obligation matrices
// of E46 and E47): an export (E46) carries the buyer's country, the shipment (InformacionesAdicionales)
// and the transport (Transporte); a payment abroad (E47) withholds ISR on every line (Retencion,
// required for E47), at a rate the owner picks and the shared money functions apply half-up.
import { mul, parseDecimal, percentOf, roundHalfUp, formatDecimal } from "@ecf/shared/money";
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
  );
  const apply = (doc: Record<string, unknown>) => {
    const encabezado = doc.Encabezado as Record<string, Record<string, unknown>>;
    const comprador = (encabezado.Comprador ??= {});
    if (pais.value.trim()) comprador.PaisComprador = pais.value.trim();
    const problems: FieldProblem[] = [];
    const when = fecha.value.trim();
    if (when && !parseDay(when))
      problems.push({ path: `${INFO}/FechaEmbarque`, messageEs: "Escriba la fecha como dd-mm-aaaa." });
    const info = present({
      FechaEmbarque: when,
      NumeroEmbarque: embarque.value.trim(),
      NombrePuertoEmbarque: puerto.value.trim(),
      NombrePuertoDesembarque: destino.value.trim(),
      CondicionesEntrega: incoterm.value,
    });
    const transporte = present({ ViaTransporte: via.value, PaisDestino: paisDestino.value.trim() });
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
  };
  return { box, apply, bind };
}

/** The ISR withheld from a payment abroad: the rate applied to each line's amount. */
function paymentAbroadForm(): AbroadForm {
  const rate = h(
    "select",
    { name: "retencion-isr" },
    h("option", { value: "27" }, "27 % (pagos a personas o empresas del exterior)"),
    h("option", { value: "10" }, "10 % (intereses pagados al exterior)"),
  );
  const box = h("fieldset", { class: "abroad" }, h("legend", {}, "Pago al exterior"), field("Retención de ISR", rate));
  const apply = (doc: Record<string, unknown>) => {
    const items = doc.DetallesItems as Record<string, unknown>[];
    for (const item of items) {
      const qty = parseDecimal(item.CantidadItem);
      const price = parseDecimal(item.PrecioUnitarioItem);
      if (!qty || !price) continue;
      const withheld = roundHalfUp(percentOf(mul(qty, price), parseDecimal(rate.value)!));
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
