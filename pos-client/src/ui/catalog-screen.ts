// The product catalogue kept on the device: add and edit name, code, price, ITBIS rate, unit.
import { parseDecimal } from "@ecf/shared/money";
import { UNIDADES_MEDIDA } from "@ecf/shared/catalogs";
import type { PosDatabase, Product } from "../db.ts";
import { money } from "../format.ts";
import { h } from "./dom.ts";

const ITBIS_LABEL: Record<Product["itbis"], string> = { "18": "ITBIS 18 %", "16": "ITBIS 16 %", "0": "ITBIS 0 %", E: "Exento" };

export async function catalogScreen(db: PosDatabase, editing?: Product): Promise<HTMLElement> {
  const products = await db.products.orderBy("name").toArray();
  const error = h("p", { class: "error", role: "alert" });
  const field = (label: string, input: HTMLElement) => h("label", {}, h("span", {}, label), input);
  const code = h("input", { name: "code", required: true, maxlength: 35, value: editing?.code ?? "", autocomplete: "off" });
  if (editing) code.readOnly = true;
  const name = h("input", { name: "name", required: true, maxlength: 80, value: editing?.name ?? "", autocomplete: "off" });
  const price = h("input", { name: "price", required: true, inputmode: "decimal", value: editing?.price ?? "", autocomplete: "off" });
  const itbis = h("select", { name: "itbis" }, ...(["18", "16", "E"] as const).map((r) => h("option", { value: r, selected: (editing?.itbis ?? "18") === r }, ITBIS_LABEL[r])));
  const unit = h(
    "select",
    { name: "unit" },
    ...UNIDADES_MEDIDA.map((u) => h("option", { value: u.codigo, selected: (editing?.unit ?? "43") === u.codigo }, `${u.descripcion} (${u.abreviatura})`)),
  );
  const kind = h(
    "select",
    { name: "kind" },
    h("option", { value: "1", selected: editing?.kind !== "2" }, "Bien"),
    h("option", { value: "2", selected: editing?.kind === "2" }, "Servicio"),
  );

  const form = h(
    "form",
    { class: "product-form", id: "product-form" },
    h("h2", {}, editing ? "Editar producto" : "Nuevo producto"),
    field("Código", code),
    field("Nombre", name),
    field("Precio (sin ITBIS)", price),
    field("ITBIS", itbis),
    field("Unidad", unit),
    field("Tipo", kind),
    error,
    h("button", { type: "submit", class: "primary" }, editing ? "Guardar cambios" : "Agregar producto"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const amount = parseDecimal(price.value.trim().replace(",", "."));
    if (!amount || amount.coef <= 0n || amount.scale > 4) {
      error.textContent = "Precio inválido: use un número positivo con hasta 4 decimales.";
      return;
    }
    if (!editing && (await db.products.get(code.value.trim()))) {
      error.textContent = "Ya existe un producto con ese código.";
      return;
    }
    await db.products.put({
      code: code.value.trim(),
      name: name.value.trim(),
      price: price.value.trim().replace(",", "."),
      itbis: itbis.value as Product["itbis"],
      unit: unit.value,
      kind: kind.value as Product["kind"],
    });
    form.dispatchEvent(new CustomEvent("catalog-changed", { bubbles: true }));
  });

  const list = h(
    "table",
    { class: "products" },
    h("thead", {}, h("tr", {}, h("th", {}, "Código"), h("th", {}, "Nombre"), h("th", {}, "Precio"), h("th", {}, "ITBIS"), h("th", {}, ""))),
    h(
      "tbody",
      {},
      ...products.map((p) =>
        h(
          "tr",
          {},
          h("td", {}, p.code),
          h("td", {}, p.name),
          h("td", { class: "num" }, money(p.price)),
          h("td", {}, ITBIS_LABEL[p.itbis]),
          h("td", {}, h("button", { type: "button", onclick: () => list.dispatchEvent(new CustomEvent("edit-product", { bubbles: true, detail: p })) }, "Editar")),
        ),
      ),
    ),
  );
  return h("div", { class: "catalog" }, form, products.length ? list : h("p", {}, "Aún no hay productos."));
}
