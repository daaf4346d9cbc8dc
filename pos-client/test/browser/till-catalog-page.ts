// Bench entry injected into the POS page (same origin as the worker): a till's first catalogue
// sync and the sale screen's product search over what it stored, timed in Chromium with the
// till's own code. Used by bench/till-catalog.bench.ts.
import { DeviceApi } from "../../src/api.ts";
import { PosDatabase } from "../../src/db.ts";
import { productByCode, searchProducts } from "../../src/sale/product-search.ts";
import { pairDevice, type Session } from "../../src/session.ts";
import { pullCatalog } from "../../src/sync/catalog.ts";
import { RESULTS_PER_PAGE } from "../../src/ui/product-results.ts";

let db: PosDatabase;
let session: Session;

async function usage(): Promise<number> {
  return (await navigator.storage.estimate()).usage ?? 0;
}

async function setup(pairingCode: string): Promise<{ usageBefore: number }> {
  db = new PosDatabase(`till-catalog-${crypto.randomUUID()}`);
  session = await pairDevice(db, pairingCode);
  return { usageBefore: await usage() };
}

/** The first pull of the whole catalogue, then the same pages fetched again without storing them (the reference). */
async function firstSync(): Promise<{ ms: number; pages: number; stored: number; usage: number; fetchOnlyMs: number }> {
  const api = new DeviceApi("", session.token);
  const t0 = performance.now();
  const report = await pullCatalog(db, session.company.id, (since, limit) => api.catalog(since, limit));
  const ms = performance.now() - t0;
  const stored = await db.products.count();
  const f0 = performance.now();
  for (let since = 0, complete = false; !complete; ) {
    const page = await api.catalog(since, 500);
    ({ complete } = page);
    since = page.nextSince;
  }
  return { ms, pages: report.pages, stored, usage: await usage(), fetchOnlyMs: performance.now() - f0 };
}

/** What the sale screen shows when it opens (and after every pull): the first page of the catalogue by name. */
async function openSaleScreen(): Promise<{ ms: number }> {
  const t0 = performance.now();
  await searchProducts(db, "", 0, RESULTS_PER_PAGE);
  return { ms: performance.now() - t0 };
}

/**
 * The search the sale screen runs for each text typed (the first page of matches, and what Enter
 * would add by exact code or barcode), per query; beside it, one product read by its key.
 */
async function search(queries: string[]): Promise<{ ms: number[]; found: number[]; keyReadMs: number[] }> {
  const ms: number[] = [];
  const found: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const [shown] = await Promise.all([searchProducts(db, q, 0, RESULTS_PER_PAGE), productByCode(db, q.trim())]);
    ms.push(performance.now() - t0);
    found.push(shown.total);
  }
  const keyReadMs: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await db.products.get(q);
    keyReadMs.push(performance.now() - t0);
  }
  return { ms, found, keyReadMs };
}

Object.assign(globalThis, { tillCatalog: { setup, firstSync, openSaleScreen, search } });
