// The issuer catalogue's rows as the issuer object keeps them: a product's stored values (integer
// cents, a normalised unit code) and a cashier's PIN columns. The catalogue's services (catalog/)
// add the API's shapes on top.
import type { cashiers, products } from "./issuer-tables.ts";

export const ITBIS_RATES = ["18", "16", "0", "exempt"] as const;
export const PRODUCT_KINDS = ["good", "service"] as const;

export type ProductRow = typeof products.$inferSelect;

/** The fields a client sets, as the issuer object stores them (cents, a normalised unit code). */
export interface ProductValues {
  code: string;
  barcodes: string[];
  name: string;
  priceCents: number;
  priceIncludesItbis: boolean;
  itbisRate: (typeof ITBIS_RATES)[number];
  unit: string;
  kind: (typeof PRODUCT_KINDS)[number];
  active: boolean;
}

export type CashierRow = typeof cashiers.$inferSelect;
/** The ledger's three PIN columns. A scrypt hash is written `scrypt:N:r:p:<base64>` (see pinOfRow). */
export interface PinHash {
  iterations: number;
  salt: string;
  hash: string;
}
