// The words a product is found by on the till (see product-search.ts), kept beside each product
// in IndexedDB by the products table's hooks (db.ts), so every writer stores them the same way.
import type { Product } from "../db.ts";

const WORD = /[\p{L}\p{N}]+/gu;

/** The lower-case words of a text, each once. */
export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(WORD) ?? [])];
}

/** What the words index holds for a product: the words of its name and of its code. */
export function productWords(p: Pick<Product, "name" | "code">): string[] {
  return searchWords(`${p.name} ${p.code}`);
}
