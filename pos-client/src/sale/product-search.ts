// Finding a product on the till without holding the catalogue in memory: a supermarket's 50,000
// products took seconds to load into the sale screen and tens of milliseconds to filter per key.
// Every product carries its search words (name and code, lower case, split at anything that is not
// a letter or digit) in a multi-entry IndexedDB index; a search asks the index for the primary keys
// under each typed word as a prefix, intersects them, and reads only the page it shows.
import type { PosDatabase, Product } from "../db.ts";
import type { Page } from "../ui/paging.ts";
import { searchWords } from "./search-words.ts";

/** A product whose code or one of whose barcodes is exactly `typed` (what a scanner sends). */
export async function productByCode(db: PosDatabase, typed: string): Promise<Product | undefined> {
  if (!typed) return undefined;
  return (await db.products.get(typed)) ?? (await db.products.where("barcodes").equals(typed).first());
}

/**
 * One page of the products the text matches: every typed word is the start of a word of the
 * product's name or code, or the text is one of its barcodes. Nothing typed: every product by
 * name. Matches come in code order.
 */
export async function searchProducts(
  db: PosDatabase,
  typed: string,
  page: number,
  size: number,
): Promise<Page<Product>> {
  const words = searchWords(typed);
  if (!words.length) {
    const total = await db.products.count();
    const at = clampPage(page, total, size);
    const items = await db.products
      .orderBy("name")
      .offset(at * size)
      .limit(size)
      .toArray();
    return { items, page: at, pages: pageCount(total, size), total };
  }
  const codes = await matchingCodes(db, typed.trim(), words);
  const at = clampPage(page, codes.length, size);
  const items = await db.products.bulkGet(codes.slice(at * size, at * size + size));
  return {
    items: items.filter((p): p is Product => p !== undefined),
    page: at,
    pages: pageCount(codes.length, size),
    total: codes.length,
  };
}

/** The codes of the matching products, sorted: the longest word narrows first, the others intersect. */
async function matchingCodes(db: PosDatabase, typed: string, words: string[]): Promise<string[]> {
  const byLength = [...words].sort((a, b) => b.length - a.length);
  let codes = new Set(await wordKeys(db, byLength[0]!));
  for (const word of byLength.slice(1)) {
    if (!codes.size) break;
    const next = new Set(await wordKeys(db, word));
    codes = new Set([...codes].filter((c) => next.has(c)));
  }
  for (const code of (await db.products.where("barcodes").equals(typed).primaryKeys()) as string[]) codes.add(code);
  return [...codes].sort();
}

const wordKeys = async (db: PosDatabase, prefix: string) =>
  (await db.products.where("words").startsWith(prefix).primaryKeys()) as string[];

const pageCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size));
const clampPage = (page: number, total: number, size: number) =>
  Math.min(Math.max(0, page), pageCount(total, size) - 1);
