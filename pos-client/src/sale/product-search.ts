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

/**
 * The codes of the matching products, sorted. The longest word narrows through the index; the
 * other words are checked on those few products' own words (a short word such as "sku" would
 * otherwise read the keys of the whole catalogue), or, for a broad first word, intersected by key.
 */
async function matchingCodes(db: PosDatabase, typed: string, words: string[]): Promise<string[]> {
  const [narrowest, ...others] = [...words].sort((a, b) => b.length - a.length);
  let codes = [...new Set(await wordKeys(db, narrowest!))];
  if (others.length && codes.length <= CHECKED_ONE_BY_ONE) {
    const candidates = await db.products.bulkGet(codes);
    codes = candidates
      .filter((p): p is Product => !!p && others.every((o) => (p.words ?? []).some((w) => w.startsWith(o))))
      .map((p) => p.code);
  } else {
    for (const word of others) {
      if (!codes.length) break;
      const next = new Set(await wordKeys(db, word));
      codes = codes.filter((c) => next.has(c));
    }
  }
  const found = new Set(codes);
  for (const code of (await db.products.where("barcodes").equals(typed).primaryKeys()) as string[]) found.add(code);
  return [...found].sort();
}

/** Up to this many candidates, the other words are checked on the products rather than through the index. */
const CHECKED_ONE_BY_ONE = 2000;

const wordKeys = async (db: PosDatabase, prefix: string) =>
  (await db.products.where("words").startsWith(prefix).primaryKeys()) as string[];

const pageCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size));
const clampPage = (page: number, total: number, size: number) =>
  Math.min(Math.max(0, page), pageCount(total, size) - 1);
