// The words a product is found by on the till (sale/product-search.ts), kept beside each product
// in IndexedDB by the products table's hooks (db.ts), so every writer stores them the same way.
// Below the schema: it reads only a product's name and code, so db.ts imports it, never the reverse.

const WORD = /[\p{L}\p{N}]+/gu;

/** The lower-case words of a text, each once. */
export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(WORD) ?? [])];
}

/** What the words index holds for a product: the words of its name and of its code. */
export function productWords(p: { name: string; code: string }): string[] {
  return searchWords(`${p.name} ${p.code}`);
}
