// The product list of the store page: each product with its barcodes, price (with or without
// ITBIS) and rate; create, edit and deactivate one (product-form.ts); import a CSV (all or nothing;
// each bad line named with its column), Spanish or English header, from a downloadable template.
import { ProblemError } from "@ecf/client";
import { money, problemText } from "@ecf/ui-kit";
import { api } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { deactivate, productForm, rateText } from "./product-form.ts";

/** The template's header (the worker also reads the English one: code,barcodes,name,…). */
export const CSV_COLUMNS = "codigo,codigos_barras,nombre,precio,precio_incluye_itbis,tasa_itbis,unidad,tipo,activo";
const TEMPLATE = `${CSV_COLUMNS}\r\nA-1,7460001|7460002,"Leche entera 1 L",85.00,sí,18,43,bien,sí\r\n`;

export async function productsSection(canEdit: boolean, reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/products", { params: { query: { limit: "200" } } });
  const status = statusLine();
  const editor = h("div", { class: "product-editor" });
  const actions = (p: NonNullable<typeof data>["items"][number]) =>
    canEdit
      ? h(
          "span",
          { class: "actions-row" },
          h("button", { type: "button", onclick: () => productForm(p, editor, reload) }, `Editar ${p.code}`),
          p.active
            ? h("button", { type: "button", onclick: () => void deactivate(p, status, reload) }, `Desactivar ${p.code}`)
            : null,
        )
      : "";
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Productos"),
    canEdit
      ? h("button", { type: "button", onclick: () => productForm(undefined, editor, reload) }, "Producto nuevo")
      : null,
    table(
      `${data?.items.length ?? 0} productos`,
      ["Código", "Códigos de barras", "Nombre", "Precio", "ITBIS", "Estado", ""],
      (data?.items ?? []).map((p) => [
        p.code,
        p.barcodes.join(", ") || "—",
        p.name,
        h("span", { class: "num" }, `${money(p.price)} ${p.priceIncludesItbis ? "con ITBIS" : "sin ITBIS"}`),
        rateText(p.itbisRate),
        p.active ? "Activo" : "Inactivo",
        actions(p),
      ]),
    ),
    editor,
    canEdit ? importForm(status, reload) : null,
    status,
  );
}

function importForm(status: HTMLElement, reload: () => void): HTMLElement {
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
  const template = URL.createObjectURL(new Blob([TEMPLATE], { type: "text/csv" }));
  return h(
    "div",
    {},
    h(
      "form",
      { class: "inline-form", onsubmit: importCsv, "aria-label": "Importar productos" },
      field("Archivo CSV", file, `Columnas: ${CSV_COLUMNS}`),
      h("button", { type: "submit" }, "Importar CSV"),
    ),
    h("a", { href: template, download: "plantilla-productos.csv" }, "Descargar la plantilla CSV"),
    errors,
  );
}
