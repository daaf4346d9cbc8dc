// A product of the issuer's shared catalogue: what the API and the CSV accept (one zod schema for
// both), what they answer, and the row the issuer object keeps. Prices travel as decimal strings
// with at most 2 decimals and are kept as integer cents: never a float, never rounded here.
import { z } from "@hono/zod-openapi";
import { unidadMedida } from "@ecf/shared/catalogs";
import { formatMoney, fromMinorUnits } from "@ecf/shared/money";
import { ITBIS_RATES, PRODUCT_KINDS, type ProductRow, type ProductValues } from "../ledger/issuer/catalog-rows.ts";

/** DGII's NombreItem holds 80 characters and CodigoItem 35. */
export const MAX_NAME = 80;
export const MAX_CODE = 35;
/** DGII's TablaCodigosItem holds 5 codes per line; a product may carry a few more barcodes. */
export const MAX_BARCODES = 10;

/** Defaults of a new product: Dominican shelf prices include ITBIS at 18 %, sold by the unit (UND). */
export const PRODUCT_DEFAULTS = {
  barcodes: [] as string[],
  priceIncludesItbis: true,
  itbisRate: "18" as const,
  unit: "43",
  kind: "good" as const,
  active: true,
};

/** A price as text: up to 13 integer digits (cents stay exact in a double) and at most 2 decimals. */
const PRICE = /^\d{1,13}(\.\d{1,2})?$/;

export function centsOf(price: string): number {
  const [int, frac = ""] = price.split(".");
  return Number(int) * 100 + Number(frac.padEnd(2, "0"));
}

const price = z.string().regex(PRICE, "price must be a decimal string with at most 2 decimals, e.g. 118.00").openapi({
  description: "Unit price in DOP, a decimal string with at most 2 decimals (answered with 2)",
  example: "118.00",
});
const code = z
  .string()
  .trim()
  .min(1)
  .max(MAX_CODE)
  .regex(/^[^\r\n]*$/, "code must be a single line")
  .openapi({
    description: `The issuer's own item code, unique among its products (1 to ${MAX_CODE} characters; DGII's CodigoItem)`,
    example: "CAFE-454",
  });
const barcode = z
  .string()
  .regex(/^[A-Za-z0-9._/+*$%-]{1,35}$/, "a barcode is 1 to 35 letters, digits or . _ / + * $ % -")
  .openapi({ example: "7460000123456" });
const name = z
  .string()
  .trim()
  .min(1)
  .max(MAX_NAME)
  .regex(/^[^\r\n]*$/, "name must be a single line")
  .openapi({
    description: `As printed on the receipt (DGII's NombreItem, 1 to ${MAX_NAME} characters)`,
    example: "Café molido 454 g",
  });
const unit = z
  .string()
  .refine(
    (value) => unidadMedida(value) !== undefined,
    "unit must be a code of DGII's Tabla IV (UnidadMedida), 1 to 62, e.g. 43 (UND)",
  )
  .transform((value) => unidadMedida(value)!.codigo)
  .openapi({ description: "DGII UnidadMedida code (Tabla IV), e.g. 43 = UND (unit), 21 = KG", example: "43" });

const fields = {
  code,
  barcodes: z
    .array(barcode)
    .max(MAX_BARCODES)
    .openapi({ description: `Up to ${MAX_BARCODES} barcodes; a scanner typing one + Enter adds the product` }),
  name,
  price,
  priceIncludesItbis: z.boolean().openapi({
    description: "true: the price is the shelf price with ITBIS included (IndicadorMontoGravado 1 on the e-CF)",
  }),
  itbisRate: z.enum(ITBIS_RATES).openapi({ description: "ITBIS rate in percent, or exempt (IndicadorFacturacion 4)" }),
  unit,
  kind: z.enum(PRODUCT_KINDS).openapi({ description: "good or service (DGII's IndicadorBienoServicio 1 or 2)" }),
  active: z
    .boolean()
    .openapi({ description: "Inactive products stay in the catalogue (tills learn of them) but are not sold" }),
};

/** POST /products and each CSV line: code, name and price are required, the rest has defaults. */
export const ProductInput = z
  .object({
    ...fields,
    barcodes: fields.barcodes.default(PRODUCT_DEFAULTS.barcodes),
    priceIncludesItbis: fields.priceIncludesItbis.default(PRODUCT_DEFAULTS.priceIncludesItbis),
    itbisRate: fields.itbisRate.default(PRODUCT_DEFAULTS.itbisRate),
    unit: z.string().default(PRODUCT_DEFAULTS.unit).pipe(unit),
    kind: fields.kind.default(PRODUCT_DEFAULTS.kind),
    active: fields.active.default(PRODUCT_DEFAULTS.active),
  })
  .strict()
  .openapi("ProductInput");

// No defaults: zod applies a default inside .partial() too, which would reset fields nobody sent.
export const ProductPatch = z.object(fields).partial().strict().openapi("ProductPatch");

export const Product = z
  .object({
    id: z.string().openapi({ example: "0b6f2c4e-8a1d-4f5e-9c3b-7d2a1e0f9b8c" }),
    code: z.string(),
    barcodes: z.array(z.string()),
    name: z.string(),
    price: z.string().openapi({ example: "118.00" }),
    priceIncludesItbis: z.boolean(),
    itbisRate: z.enum(ITBIS_RATES),
    unit: z.string().openapi({ example: "43" }),
    kind: z.enum(PRODUCT_KINDS),
    active: z.boolean(),
    version: z.number().int().openapi({
      description: "The catalogue version of the product's last change; its ETag is this number in quotes",
    }),
    updatedAt: z.string(),
  })
  .openapi("Product");
export type ProductView = z.infer<typeof Product>;

/** What the issuer object stores for a validated input (the price in cents). */
export function productValues(input: z.output<typeof ProductInput>): ProductValues {
  const { price: text, ...rest } = input;
  return { ...rest, priceCents: centsOf(text) };
}

export function productChanges(patch: z.output<typeof ProductPatch>): Partial<ProductValues> {
  const { price: text, ...rest } = patch;
  return { ...rest, ...(text === undefined ? {} : { priceCents: centsOf(text) }) };
}

export function productView(row: ProductRow): ProductView {
  return {
    id: row.id,
    code: row.code,
    barcodes: row.barcodes,
    name: row.name,
    price: formatMoney(fromMinorUnits(BigInt(row.priceCents))),
    priceIncludesItbis: row.priceIncludesItbis,
    itbisRate: row.itbisRate as ProductView["itbisRate"],
    unit: row.unit,
    kind: row.kind,
    active: row.active,
    version: row.version,
    updatedAt: row.updatedAt,
  };
}

/** The ETag of a catalogue row: its version, quoted (a strong validator). */
export const etagOf = (version: number) => `"${version}"`;

/** The opaque cursor of GET /products: the last code of the page, base64url. */
export function productCursor(lastCode: string): string {
  const bytes = new TextEncoder().encode(`p:${lastCode}`);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The code a cursor carries, or undefined for one this route never gave. */
export function codeOfCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
    return text.startsWith("p:") ? text.slice(2) : undefined;
  } catch {
    return undefined;
  }
}
