// Finding a product on the till without holding the catalogue in memory: a supermarket's 50,000
// products took seconds to load into the sale screen and tens of milliseconds to filter per key.
// Every product carries its search words (name and code, lower case, split at anything that is not
// a letter or digit) in a multi-entry IndexedDB index; a search asks the index for the primary keys
// under the typed words as prefixes and reads only the page it shows.
import type { PosDatabase, Product } from "../db.ts";
import { searchWords } from "../search-words.ts";
import type { Page } from "./paging.ts";

/** A product whose code or one of whose barcodes is exactly `typed` (what a scanner sends). */
export async function productByCode(db: PosDatabase, typed: string): Promise<Product | undefined> {
  if (!typed) return undefined;
  return (await db.products.get(typed)) ?? (await db.products.where("barcodes").equals(typed).first());
}

/**
 * One page of the products the text matches: every typed word is the start of a word of the
 * product's name or code, or the text is one of its barcodes. Nothing typed: every product by
 * name. A barcode's product comes first; one word typed lists by the word matched, then code (the
 * index's own order, so a page reads only its keys); several words list by code.
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
  const scanned = (await db.products.where("barcodes").equals(typed.trim()).primaryKeys()) as string[];
  const { codes, total } =
    words.length === 1
      ? await oneWordCodes(db, words[0]!, scanned, page, size)
      : await severalWordsCodes(db, words, scanned);
  const at = clampPage(page, total, size);
  const items = await db.products.bulkGet(codes.slice(at * size, at * size + size));
  return {
    items: items.filter((p): p is Product => p !== undefined),
    page: at,
    pages: pageCount(total, size),
    total,
  };
}

/**
 * The codes up to the end of `page` for one typed word, in the index's order, without reading the
 * keys past it: a 3-letter prefix is thousands of keys in a supermarket's catalogue, 30 ms and more
 * to read, where IndexedDB counts them in 2. A product with two words under the prefix is two index
 * entries, so until the last page is read the total counts entries, not products (rarely more).
 */
async function oneWordCodes(
  db: PosDatabase,
  word: string,
  scanned: string[],
  page: number,
  size: number,
): Promise<{ codes: string[]; total: number }> {
  const entries = await db.products.where("words").startsWith(word).count();
  const wanted = (clampPage(page, scanned.length + entries, size) + 1) * size;
  const codes = new Set(scanned);
  for (let read = wanted * 2; ; read *= 2) {
    const keys = (await db.products.where("words").startsWith(word).limit(read).primaryKeys()) as string[];
    for (const code of keys) codes.add(code);
    if (keys.length < read) return { codes: [...codes], total: codes.size };
    if (codes.size >= wanted) return { codes: [...codes], total: Math.max(codes.size, scanned.length + entries) };
    codes.clear();
    for (const code of scanned) codes.add(code);
  }
}

/**
 * The codes of the products with every word, sorted, after the scanned ones. The word with the
 * fewest index entries (IndexedDB counts them without reading) narrows; the other words are checked
 * on those few products' own words, or, when even the narrowest is broad, intersected by key.
 */
async function severalWordsCodes(
  db: PosDatabase,
  words: string[],
  scanned: string[],
): Promise<{ codes: string[]; total: number }> {
  const counted = await Promise.all(
    words.map(async (w) => ({ w, n: await db.products.where("words").startsWith(w).count() })),
  );
  const [narrowest, ...others] = counted.sort((a, b) => a.n - b.n).map((c) => c.w);
  let codes = [...new Set(await wordKeys(db, narrowest!))];
  if (codes.length <= CHECKED_ONE_BY_ONE) {
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
  const all = [...new Set([...scanned, ...codes.sort()])];
  return { codes: all, total: all.length };
}

/** Up to this many candidates, the other words are checked on the products rather than through the index. */
const CHECKED_ONE_BY_ONE = 2000;

const wordKeys = async (db: PosDatabase, prefix: string) =>
  (await db.products.where("words").startsWith(prefix).primaryKeys()) as string[];

const pageCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size));
const clampPage = (page: number, total: number, size: number) =>
  Math.min(Math.max(0, page), pageCount(total, size) - 1);
