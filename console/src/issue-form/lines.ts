// One detail line of a hand-made invoice: description, quantity, unit price (typed the Dominican
// way, read by the UI kit's one parser), ITBIS rate, good or service, and a discount and a
// surcharge in pesos. It reads itself into DGII's Item, or says at which field it cannot.
import { canonical, MONEY, type NumberRule, PRICE, parseNumber, quantityRule } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import type { FieldErrors, FieldProblem } from "./field-errors.ts";

/** IndicadorFacturacion as the owner picks it. */
export const RATES = [
  ["1", "ITBIS 18 %"],
  ["2", "ITBIS 16 %"],
  ["3", "ITBIS 0 %"],
  ["4", "Exento"],
] as const;

export interface LineForm {
  row: HTMLElement;
  name: HTMLInputElement;
  price: HTMLInputElement;
  rate: HTMLSelectElement;
  /** The Item, or the problems of what could not be read (at their paths). */
  read(): { item: Record<string, unknown>; problems: FieldProblem[] };
  /** Binds each control to its path under /DetallesItems/{index}. */
  bind(errors: FieldErrors, index: number): void;
}

const select = (name: string, options: readonly (readonly [string, string])[]) =>
  h("select", { name }, ...options.map(([value, text]) => h("option", { value }, text)));

export function lineForm(n: number, preset?: { name: string; price: string; rate: string; kind: string }): LineForm {
  const name = h("input", { name: `nombre-${n}`, value: preset?.name ?? "" });
  const qty = h("input", { name: `cantidad-${n}`, inputmode: "decimal", value: "1" });
  const price = h("input", { name: `precio-${n}`, inputmode: "decimal", value: preset?.price ?? "" });
  const rate = select(`itbis-${n}`, RATES);
  const kind = select(`tipo-${n}`, [
    ["1", "Bien"],
    ["2", "Servicio"],
  ]);
  if (preset) [rate.value, kind.value] = [preset.rate, preset.kind];
  const discount = h("input", { name: `descuento-${n}`, inputmode: "decimal" });
  const surcharge = h("input", { name: `recargo-${n}`, inputmode: "decimal" });
  const row = h(
    "fieldset",
    { class: "line" },
    h("legend", {}, `Línea ${n}`),
    field("Descripción", name),
    field("Cantidad", qty),
    field("Precio unitario", price, "Como se escribe: 1,500.00 o 1,000"),
    field("ITBIS", rate),
    field("Bien o servicio", kind),
    field("Descuento en RD$ (opcional)", discount),
    field("Recargo en RD$ (opcional)", surcharge),
  );
  let at = "/DetallesItems/0";
  const read = () => {
    const problems: FieldProblem[] = [];
    const amount = (input: HTMLInputElement, element: string, rule: NumberRule, optional = false) => {
      if (optional && !input.value.trim()) return undefined;
      const parsed = parseNumber(input.value, rule);
      if (parsed.ok) return canonical(parsed.value);
      problems.push({ path: `${at}/${element}`, messageEs: parsed.error });
      return undefined;
    };
    const item: Record<string, unknown> = {
      IndicadorFacturacion: rate.value,
      NombreItem: name.value.trim(),
      IndicadorBienoServicio: kind.value,
      CantidadItem: amount(qty, "CantidadItem", quantityRule("9999999999")) ?? qty.value.trim(),
      UnidadMedida: "43",
      PrecioUnitarioItem: amount(price, "PrecioUnitarioItem", PRICE) ?? price.value.trim(),
    };
    const off = amount(discount, "DescuentoMonto", MONEY("El descuento"), true);
    if (off && off !== "0")
      Object.assign(item, {
        DescuentoMonto: off,
        TablaSubDescuento: [{ TipoSubDescuento: "$", MontoSubDescuento: off }],
      });
    const extra = amount(surcharge, "RecargoMonto", MONEY("El recargo"), true);
    if (extra && extra !== "0")
      Object.assign(item, { RecargoMonto: extra, TablaSubRecargo: [{ TipoSubRecargo: "$", MontoSubRecargo: extra }] });
    return { item, problems };
  };
  const bind = (errors: FieldErrors, index: number) => {
    at = `/DetallesItems/${index}`;
    errors.bind(row, at);
    errors.bind(name, `${at}/NombreItem`);
    errors.bind(qty, `${at}/CantidadItem`);
    errors.bind(price, `${at}/PrecioUnitarioItem`, `${at}/MontoItem`);
    errors.bind(rate, `${at}/IndicadorFacturacion`);
    errors.bind(kind, `${at}/IndicadorBienoServicio`);
    errors.bind(discount, `${at}/DescuentoMonto`, `${at}/TablaSubDescuento`);
    errors.bind(surcharge, `${at}/RecargoMonto`, `${at}/TablaSubRecargo`);
  };
  return { row, name, price, rate, read, bind };
}

/** The invoice's lines, one to start with and more on request, each bound to its paths. */
export function linesEditor(errors: FieldErrors): {
  box: HTMLElement;
  addButton: HTMLElement;
  read: () => ReturnType<LineForm["read"]>[];
} {
  const lines: LineForm[] = [];
  const box = h("div", { class: "lines" });
  const add = () => {
    const line = lineForm(lines.length + 1);
    box.append(line.row);
    line.bind(errors, lines.length);
    lines.push(line);
  };
  add();
  const addButton = h("button", { type: "button", onclick: add }, "Agregar línea");
  return { box, addButton, read: () => lines.map((l) => l.read()) };
}
