// One product created or edited: code, barcodes, name, price (typed the Dominican way, read by the
// till's own parser) with or without ITBIS, its rate, unit and kind. A new product is POSTed; an
// edit is a PATCH If-Match its version (someone else's change in between is refused, not lost).
import type { components } from "@ecf/client";
import { UNIDADES_MEDIDA } from "@ecf/shared/catalogs";
import { canonical, formatNumber, PRICE, parseNumber } from "@ecf/ui-kit";
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine } from "../dom.ts";

type Product = components["schemas"]["Product"];

/** The catalogue's price: the till's price rule, narrowed to what a product holds (13 digits, cents). */
const PRODUCT_PRICE = { ...PRICE, decimals: 2, integerDigits: 13 };

const RATES = [
  ["18", "ITBIS 18 %"],
  ["16", "ITBIS 16 %"],
  ["0", "ITBIS 0 %"],
  ["exempt", "Exento"],
] as const;

export const rateText = (rate: string) => RATES.find(([r]) => r === rate)?.[1] ?? rate;

const select = (name: string, value: string, options: readonly (readonly [string, string])[]) =>
  h("select", { name }, ...options.map(([v, t]) => h("option", { value: v, selected: v === value }, t)));

/** The form of `p` (a new product when undefined), shown in `box`; `reload` after saving. */
export function productForm(p: Product | undefined, box: HTMLElement, reload: () => void): void {
  const code = h("input", { name: "codigo", value: p?.code ?? "", required: true, readonly: p ? true : null });
  const barcodes = h("input", { name: "barras", value: p?.barcodes.join(", ") ?? "", inputmode: "numeric" });
  const name = h("input", { name: "nombre", value: p?.name ?? "", required: true });
  const price = h("input", {
    name: "precio",
    value: p ? formatNumber(p.price, 2) : "",
    inputmode: "decimal",
    required: true,
  });
  const included = h("input", { type: "checkbox", name: "incluye-itbis", checked: p ? p.priceIncludesItbis : true });
  const rate = select("tasa", p?.itbisRate ?? "18", RATES);
  const unit = select(
    "unidad",
    p?.unit ?? "43",
    UNIDADES_MEDIDA.map((u) => [u.codigo, u.descripcion] as const),
  );
  const kind = select("tipo", p?.kind ?? "good", [
    ["good", "Bien"],
    ["service", "Servicio"],
  ]);
  const status = statusLine();
  const save = async (event: Event) => {
    event.preventDefault();
    const typed = parseNumber(price.value, PRODUCT_PRICE);
    if (!typed.ok) {
      status.textContent = typed.error;
      price.setAttribute("aria-invalid", "true");
      price.focus();
      return;
    }
    const body = {
      barcodes: barcodes.value.split(/[\s,|]+/).filter(Boolean),
      name: name.value.trim(),
      price: canonical(typed.value),
      priceIncludesItbis: included.checked,
      itbisRate: rate.value as Product["itbisRate"],
      unit: unit.value,
      kind: kind.value as Product["kind"],
    };
    await reportingTo(status, async () => {
      if (p)
        await api.PATCH("/products/{id}", {
          params: { path: { id: p.id }, header: { "If-Match": `"${p.version}"` } },
          body,
        });
      else await api.POST("/products", { body: { ...body, code: code.value.trim() } });
      reload();
    });
  };
  const title = p ? `Editar ${p.code}` : "Producto nuevo";
  box.replaceChildren(
    h(
      "form",
      { class: "inline-form product-form", onsubmit: save, "aria-label": title },
      h("h3", {}, title),
      field("Código", code),
      field("Códigos de barras", barcodes, "Separados por coma"),
      field("Nombre", name),
      field("Precio", price, "Con punto decimal y coma de miles, p. ej. 1,250.50"),
      h("label", { class: "check" }, included, " El precio incluye ITBIS"),
      field("ITBIS", rate),
      field("Unidad", unit),
      field("Bien o servicio", kind),
      h("button", { type: "submit", class: "primary" }, "Guardar"),
    ),
    status,
  );
  (p ? name : code).focus();
}

/** Withdraws `p` (it becomes inactive; the tills stop selling it on their next pull). */
export async function deactivate(p: Product, status: HTMLElement, reload: () => void): Promise<void> {
  await reportingTo(status, async () => {
    await api.DELETE("/products/{id}", { params: { path: { id: p.id }, header: { "If-Match": `"${p.version}"` } } });
    reload();
  });
}
