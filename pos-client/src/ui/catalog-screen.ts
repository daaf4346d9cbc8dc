// The product catalogue on the device: the issuer's catalogue as last pulled from the server, read
// only unless the issuer lets this till change prices (a per-device setting). A till allowed to do
// so may change a price (kept until the server changes that product) and add a product of its own.
import { UNIDADES_MEDIDA } from "@ecf/shared/catalogs";
import { canonical, h, money, parseNumber, PRICE } from "@ecf/ui-kit";
import type { PosDatabase, Product } from "../db.ts";
import { dateTime } from "../format.ts";
import { catalogState } from "../sync/catalog.ts";

const ITBIS_LABEL: Record<Product["itbis"], string> = {
  "18": "ITBIS 18 %",
  "16": "ITBIS 16 %",
  "0": "ITBIS 0 %",
  E: "Exento",
};

/** The Productos tab, which keeps the product being edited across redraws (a pull, a save). */
export interface CatalogTab {
  /** Draws the tab, the product being edited (if any) in the form. */
  view(): Promise<HTMLElement>;
  /** Drops a half-done edit: leaving (or re-entering) the tab opens a new form. */
  reset(): void;
  /** A product is open in the form: a pull must not redraw the tab under the cashier. */
  readonly editing: boolean;
}

/** The tab; `redraw` puts it on screen again after an edit starts or a product is saved. */
export function catalogTab(db: PosDatabase, redraw: () => void): CatalogTab {
  let editing: Product | undefined;
  const actions: CatalogActions = {
    edit: (p) => {
      editing = p;
      redraw();
    },
    saved: () => {
      editing = undefined;
      redraw();
    },
  };
  return {
    view: () => catalogScreen(db, editing, actions),
    reset: () => {
      editing = undefined;
    },
    get editing() {
      return editing !== undefined;
    },
  };
}

interface CatalogActions {
  /** The cashier opened a product in the form. */
  edit(p: Product): void;
  /** The form's product was saved: the tab shows the catalogue with it and a new form. */
  saved(): void;
}

async function catalogScreen(db: PosDatabase, editing: Product | undefined, actions: CatalogActions) {
  const products = await db.products.orderBy("name").toArray();
  const { updatedAt, canEditPrices } = await catalogState(db);
  const table = products.length
    ? productTable(products, canEditPrices ? actions.edit : undefined)
    : h("p", {}, "Aún no hay productos.");
  return h(
    "div",
    { class: `catalog${canEditPrices ? "" : " read-only"}` },
    h("div", { class: "catalog-head" }, updatedNote(updatedAt), rightsNote(canEditPrices)),
    canEditPrices ? productForm(db, editing, actions.saved) : null,
    table,
  );
}

const updatedNote = (updatedAt: string | undefined) =>
  h(
    "p",
    { class: "catalog-updated", id: "catalog-updated" },
    updatedAt
      ? `Catálogo actualizado: ${dateTime(updatedAt)}`
      : "El catálogo de la empresa aún no se ha descargado en este punto de venta.",
  );

const rightsNote = (canEditPrices: boolean) =>
  canEditPrices
    ? h(
        "p",
        { class: "note", id: "catalog-rights" },
        "Este punto de venta puede cambiar precios; un cambio del catálogo de la empresa lo reemplaza.",
      )
    : h(
        "p",
        { class: "note", id: "catalog-rights" },
        "Los productos y precios se administran en el catálogo de la empresa: este punto de venta no puede cambiarlos.",
      );

/** The products; a till that may change prices has an edit button per row (it opens the form). */
function productTable(products: Product[], edit: ((p: Product) => void) | undefined): HTMLElement {
  return h(
    "table",
    { class: "products" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "Código"),
        h("th", {}, "Nombre"),
        h("th", {}, "Precio"),
        h("th", {}, "ITBIS"),
        h("th", {}, "Códigos de barras"),
        edit ? h("th", {}, "") : null,
      ),
    ),
    h("tbody", {}, ...products.map((p) => productRow(p, edit))),
  );
}

function productRow(p: Product, edit: ((p: Product) => void) | undefined): HTMLElement {
  return h(
    "tr",
    { "data-code": p.code },
    h("td", {}, p.code),
    h("td", {}, p.name),
    h("td", { class: "num" }, money(p.price)),
    h(
      "td",
      {},
      `${ITBIS_LABEL[p.itbis]}${p.priceIncludesItbis && (p.itbis === "18" || p.itbis === "16") ? " (incluido)" : ""}`,
    ),
    h("td", { class: "barcodes" }, (p.barcodes ?? []).join(", ")),
    edit ? h("td", {}, h("button", { type: "button", onclick: () => edit(p) }, "Editar")) : null,
  );
}

/** The inputs of the product form, filled with the product edited (or a new product's defaults). */
function productFields(editing?: Product) {
  const code = h("input", {
    name: "code",
    required: true,
    maxlength: 35,
    value: editing?.code ?? "",
    autocomplete: "off",
  });
  if (editing) code.readOnly = true;
  const name = h("input", {
    name: "name",
    required: true,
    maxlength: 80,
    value: editing?.name ?? "",
    autocomplete: "off",
  });
  const price = h("input", {
    name: "price",
    required: true,
    inputmode: "decimal",
    value: editing?.price ?? "",
    autocomplete: "off",
  });
  const includes = h("input", {
    name: "priceIncludesItbis",
    type: "checkbox",
    checked: editing?.priceIncludesItbis === true,
  });
  const itbis = h(
    "select",
    { name: "itbis" },
    ...(["18", "16", "0", "E"] as const).map((r) =>
      h("option", { value: r, selected: (editing?.itbis ?? "18") === r }, ITBIS_LABEL[r]),
    ),
  );
  const unit = h(
    "select",
    { name: "unit" },
    ...UNIDADES_MEDIDA.map((u) =>
      h(
        "option",
        { value: u.codigo, selected: (editing?.unit ?? "43") === u.codigo },
        `${u.descripcion} (${u.abreviatura})`,
      ),
    ),
  );
  const kind = h(
    "select",
    { name: "kind" },
    h("option", { value: "1", selected: editing?.kind !== "2" }, "Bien"),
    h("option", { value: "2", selected: editing?.kind === "2" }, "Servicio"),
  );
  return { code, name, price, includes, itbis, unit, kind };
}

type ProductFields = ReturnType<typeof productFields>;

/** Add a product of this till, or change a price (a product of the issuer's catalogue keeps everything else). */
function productForm(db: PosDatabase, editing: Product | undefined, saved: () => void): HTMLElement {
  const fromCatalog = editing?.id !== undefined;
  const error = h("p", { class: "error", role: "alert" });
  const field = (label: string, input: HTMLElement) => h("label", {}, h("span", {}, label), input);
  const fields = productFields(editing);
  const { code, name, price, includes, itbis, unit, kind } = fields;
  // Only the price of the issuer's product is this till's to change.
  if (fromCatalog) for (const el of [name, includes, itbis, unit, kind]) el.disabled = true;

  const form = h(
    "form",
    { class: "product-form", id: "product-form" },
    h("h2", {}, editing ? "Editar producto" : "Nuevo producto"),
    field("Código", code),
    field("Nombre", name),
    field("Precio", price),
    h("label", { class: "check" }, includes, h("span", {}, "El precio incluye ITBIS")),
    field("ITBIS", itbis),
    field("Unidad", unit),
    field("Tipo", kind),
    error,
    h("button", { type: "submit", class: "primary" }, editing ? "Guardar cambios" : "Agregar producto"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = await saveProduct(db, fields, editing);
    if (problem) error.textContent = problem;
    else saved();
  });
  return form;
}

/** Saves what the form holds, or says (in Spanish) why it cannot. */
async function saveProduct(db: PosDatabase, fields: ProductFields, editing?: Product): Promise<string | undefined> {
  const parsed = parseNumber(fields.price.value, PRICE);
  if (!parsed.ok || parsed.value.coef === 0n) return parsed.ok ? "El precio: debe ser mayor que cero." : parsed.error;
  const text = canonical(parsed.value);
  // The permission is read again: the issuer may have withdrawn it since the screen was drawn.
  if (!(await catalogState(db)).canEditPrices) return "Este punto de venta ya no puede cambiar precios.";
  if (editing && editing.id !== undefined) {
    await db.products.update(editing.code, { price: text, priceEditedHere: true });
    return undefined;
  }
  const code = fields.code.value.trim();
  if (!editing && (await db.products.get(code))) return "Ya existe un producto con ese código.";
  await db.products.put({
    code,
    name: fields.name.value.trim(),
    price: text,
    itbis: fields.itbis.value as Product["itbis"],
    unit: fields.unit.value,
    kind: fields.kind.value as Product["kind"],
    priceIncludesItbis: fields.includes.checked,
  });
  return undefined;
}
