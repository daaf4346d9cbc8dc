// The product list of the store page: search, edit a product's name and price (If-Match its
// version; the price typed the Dominican way, "1,250.50", read by the till's own parser), and
// import a CSV (all or nothing; each bad line named with its column).
import type { components } from "@ecf/client";
import { canonical, formatNumber, money, parseNumber, PRICE, problemText } from "@ecf/ui-kit";
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { ProblemError } from "@ecf/client";

type Product = components["schemas"]["Product"];

/** The catalogue's price: the till's price rule, narrowed to what a product holds (13 digits, cents). */
const PRODUCT_PRICE = { ...PRICE, decimals: 2, integerDigits: 13 };

export const CSV_COLUMNS = "code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active";

export async function productsSection(canEdit: boolean, reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/products", { params: { query: { limit: "200" } } });
  const status = statusLine();
  const errors = h("ul", { class: "errors", "aria-label": "Líneas con errores" });
  const file = h("input", { type: "file", name: "csv", accept: ".csv,text/csv" });
  const importCsv = async (event: Event) => {
    event.preventDefault();
    errors.replaceChildren();
    const chosen = file.files?.[0];
    if (!chosen) {
      status.textContent = "Elija un archivo CSV.";
      return;
    }
    try {
      const { data: done } = await api.POST("/products/import", {
        body: new Blob([await chosen.text()], { type: "text/csv" }) as never,
        headers: { "Content-Type": "text/csv" },
      });
      const { created, updated, unchanged } = done!;
      status.textContent = `Importado: ${created} nuevos, ${updated} cambiados, ${unchanged} iguales.`;
      reload();
    } catch (e) {
      status.textContent =
        e instanceof ProblemError ? "El archivo no se importó: corrija estas líneas." : problemText(e);
      if (e instanceof ProblemError)
        errors.replaceChildren(
          ...e.errors.map((x) => {
            const item = x as { line?: number; column?: string | null; detail?: string; message: string };
            const where = item.line ? `Línea ${item.line}${item.column ? `, ${item.column}` : ""}` : x.path;
            return h("li", {}, `${where}: ${item.detail ?? item.message}`);
          }),
        );
    }
  };
  const editor = h("div", { class: "product-editor" });
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Productos"),
    table(
      `${data?.items.length ?? 0} productos`,
      ["Código", "Nombre", "Precio", "ITBIS", ""],
      (data?.items ?? []).map((p) => [
        p.code,
        p.name,
        h("span", { class: "num" }, money(p.price)),
        p.itbisRate === "exempt" ? "Exento" : `${p.itbisRate} %`,
        canEdit ? h("button", { type: "button", onclick: () => edit(p, editor, reload) }, `Editar ${p.code}`) : "",
      ]),
    ),
    editor,
    canEdit
      ? h(
          "form",
          { class: "inline-form", onsubmit: importCsv, "aria-label": "Importar productos" },
          field("Archivo CSV", file, `Columnas: ${CSV_COLUMNS}`),
          h("button", { type: "submit" }, "Importar CSV"),
        )
      : null,
    status,
    errors,
  );
}

function edit(p: Product, box: HTMLElement, reload: () => void): void {
  const name = h("input", { name: "nombre", value: p.name, required: true });
  const price = h("input", { name: "precio", value: formatNumber(p.price, 2), inputmode: "decimal", required: true });
  const status = statusLine();
  const save = async (event: Event) => {
    event.preventDefault();
    const typed = parseNumber(price.value, PRODUCT_PRICE);
    if (!typed.ok) {
      status.textContent = typed.error;
      price.focus();
      return;
    }
    await reportingTo(status, async () => {
      await api.PATCH("/products/{id}", {
        params: { path: { id: p.id }, header: { "If-Match": `"${p.version}"` } },
        body: { name: name.value.trim(), price: canonical(typed.value) },
      });
      reload();
    });
  };
  box.replaceChildren(
    h(
      "form",
      { class: "inline-form", onsubmit: save, "aria-label": `Editar ${p.code}` },
      field("Nombre", name),
      field("Precio", price, "Con punto decimal y coma de miles, p. ej. 1,250.50"),
      h("button", { type: "submit", class: "primary" }, "Guardar"),
    ),
    status,
  );
  name.focus();
}
