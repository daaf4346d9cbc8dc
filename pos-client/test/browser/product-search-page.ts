// Injected into a blank page by product-search.browser.test.ts: the till's product search over a
// fresh IndexedDB in Chromium, with the products written as the till writes them.
import { PosDatabase, type Product } from "../../src/db.ts";
import { productByCode, searchProducts } from "../../src/sale/product-search.ts";

let db: PosDatabase;

async function seed(products: Product[]): Promise<number> {
  db = new PosDatabase(`search-${crypto.randomUUID()}`);
  await db.products.bulkPut(products);
  return db.products.count();
}

/** Every match of `typed`, page after page as the till shows them, and the totals the first and last page gave. */
async function search(
  typed: string,
  size = 24,
): Promise<{ codes: string[]; total: number; pages: number; lastTotal: number }> {
  const first = await searchProducts(db, typed, 0, size);
  const codes = first.items.map((p) => p.code);
  let last = first;
  for (let page = 1; page < last.pages; page++) {
    last = await searchProducts(db, typed, page, size);
    codes.push(...last.items.map((p) => p.code));
  }
  return { codes, total: first.total, pages: first.pages, lastTotal: last.total };
}

async function byCode(typed: string): Promise<string | undefined> {
  return (await productByCode(db, typed))?.code;
}

async function rename(code: string, name: string): Promise<void> {
  await db.products.update(code, { name });
}

Object.assign(globalThis, { productSearch: { seed, search, byCode, rename } });
