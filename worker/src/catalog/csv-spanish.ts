// The products CSV as an owner writes it in Spanish (the console's template): each column's
// Spanish name and the Spanish words of the coded cells. The English header and values still work.

/** The columns of csv.ts's PRODUCT_CSV_COLUMNS (named here so that neither module imports the other). */
type Column = "code" | "barcodes" | "name" | "price" | "priceIncludesItbis" | "itbisRate" | "unit" | "kind" | "active";

export const PRODUCT_CSV_COLUMNS_ES: Record<Column, string> = {
  code: "codigo",
  barcodes: "codigos_barras",
  name: "nombre",
  price: "precio",
  priceIncludesItbis: "precio_incluye_itbis",
  itbisRate: "tasa_itbis",
  unit: "unidad",
  kind: "tipo",
  active: "activo",
};

const SPANISH_COLUMN = new Map<string, string>(
  Object.entries(PRODUCT_CSV_COLUMNS_ES).map(([column, es]) => [es, column]),
);
/** Accents, case, spaces and hyphens aside ("Código de barras" and "codigo_de_barras" alike). */
const key = (cell: string) =>
  cell
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

/** A header cell's column: the Spanish name's, else the cell as given (an English name). */
export function spanishColumn(cell: string): string {
  return SPANISH_COLUMN.get(key(cell)) ?? cell;
}

/** The coded columns' Spanish words (sí/no, bien/servicio, exento) as the English values. */
const CODED: Partial<Record<Column, Record<string, string>>> = {
  priceIncludesItbis: { si: "true", no: "false" },
  active: { si: "true", no: "false" },
  kind: { bien: "good", servicio: "service" },
  itbisRate: { exento: "exempt" },
};

export function spanishValue(column: string, cell: string): string {
  return CODED[column as Column]?.[key(cell)] ?? cell;
}
