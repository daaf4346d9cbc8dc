// One detail line of a hand-made invoice: description, quantity, unit price (typed the Dominican
// way, read by the UI kit's one parser), ITBIS rate, good or service, and a discount and a
// surcharge in pesos. It reads itself into DGII's Item, or says at which field it cannot.
import type { components } from "@ecf/client";
import { canonical, formatNumber, MONEY, type NumberRule, PRICE, parseNumber, quantityRule } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import type { FieldErrors, FieldProblem } from "./field-errors.ts";

/** IndicadorFacturacion as the owner picks it. */
export const RATES = [
  ["1", "ITBIS 18 %"],
  ["2", "ITBIS 16 %"],
  ["3", "ITBIS 0 %"],
  ["4", "Exento"],
] as const;

type Product = components["schemas"]["Product"];
/** A product's rate and kind as the Item's IndicadorFacturacion and IndicadorBienoServicio. */
const RATE_OF: Record<Product["itbisRate"], string> = { "18": "1", "16": "2", "0": "3", exempt: "4" };
const KIND_OF: Record<Product["kind"], string> = { good: "1", service: "2" };

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

/**
 * Line `n`; a description that names a product of `catalog` (by name or code) takes its price, rate
 * and kind. `fixedRate` is the IndicadorFacturacion a type forces on every line (an export's 0 %).
 */
export function lineForm(n: number, catalog: Product[], onProduct: (p: Product) => void, fixedRate?: string): LineForm {
  const name = h("input", { name: `nombre-${n}`, list: "productos", autocomplete: "off" });
  const qty = h("input", { name: `cantidad-${n}`, inputmode: "decimal", value: "1" });
  const price = h("input", { name: `precio-${n}`, inputmode: "decimal" });
  const rate = select(`itbis-${n}`, RATES);
  const kind = select(`tipo-${n}`, [
    ["1", "Bien"],
    ["2", "Servicio"],
  ]);
  name.addEventListener("change", () => {
    const typed = name.value.trim();
    const p = catalog.find((c) => c.name === typed || c.code === typed);
    if (!p) return;
    [name.value, price.value] = [p.name, formatNumber(p.price, 2)];
    [rate.value, kind.value] = [fixedRate ?? RATE_OF[p.itbisRate], KIND_OF[p.kind]];
    onProduct(p);
  });
  if (fixedRate) [rate.value, rate.disabled] = [fixedRate, true];
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
export function linesEditor(
  errors: FieldErrors,
  catalog: Product[],
  onProduct: (p: Product) => void,
  fixedRate?: string,
): { box: HTMLElement; addButton: HTMLElement; read: () => ReturnType<LineForm["read"]>[] } {
  const lines: LineForm[] = [];
  const products = h("datalist", { id: "productos" }, ...catalog.map((p) => h("option", { value: p.name }, p.code)));
  const box = h("div", { class: "lines" }, products);
  const add = () => {
    const line = lineForm(lines.length + 1, catalog, onProduct, fixedRate);
    box.append(line.row);
    line.bind(errors, lines.length);
    lines.push(line);
  };
  add();
  const addButton = h("button", { type: "button", onclick: add }, "Agregar línea");
  return { box, addButton, read: () => lines.map((l) => l.read()) };
}
