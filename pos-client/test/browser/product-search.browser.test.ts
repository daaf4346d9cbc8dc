// The till's product search (sale/product-search.ts) in Chromium's IndexedDB over a few thousand
// products: by a word of the name, a word's start, several words, the code, a barcode, accents and
// case as typed, and a renamed product found by its new name only. Correctness, not timing
// (bench/till-catalog.bench.ts times it over 50,000).
import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Product } from "../../src/db.ts";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const N = 3000;
const NOUNS = ["Arroz", "Habichuelas", "Café", "Leche", "Azúcar", "Queso", "Pan", "Jugo", "Agua", "Jabón", "Arepa"];
const BRANDS = ["La Garza", "Selecto", "Goya", "Rica", "Induveca", "Baldom", "Mazola"];
const SIZES = ["1 lb", "5 lb", "500 g", "1 L", "2 L"];
const products: Product[] = Array.from({ length: N }, (_, i) => ({
  code: `SKU-${String(i).padStart(6, "0")}`,
  name: `${NOUNS[i % NOUNS.length]} ${BRANDS[Math.floor(i / NOUNS.length) % BRANDS.length]} ${SIZES[i % SIZES.length]}`,
  price: "100.00",
  itbis: "18",
  unit: "43",
  kind: "1",
  barcodes:
    i % 3 === 0
      ? [`746${String(i).padStart(10, "0")}`, String(i).padStart(12, "0")]
      : [`746${String(i).padStart(10, "0")}`],
}));
/** The codes whose name has every one of `words` (whole words, as written). */
const withWords = (...words: string[]) =>
  products.filter((p) => words.every((w) => p.name.split(" ").includes(w))).map((p) => p.code);

let server: Server;
let browser: Browser;
let page: Page;
const call = <T>(name: string, ...args: unknown[]) =>
  page.evaluate(
    ([n, a]) =>
      (globalThis as unknown as { productSearch: Record<string, (...x: unknown[]) => unknown> }).productSearch[n]!(
        ...a,
      ),
    [name, args] as const,
  ) as Promise<T>;
const search = (typed: string) =>
  call<{ codes: string[]; total: number; pages: number; lastTotal: number }>("search", typed);

beforeAll(async () => {
  // IndexedDB needs an origin: a blank page from a local server.
  server = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html>"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./product-search-page.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox"] });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  expect(await call<number>("seed", products)).toBe(N);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe("the till's product search over a few thousand products", () => {
  it("finds every product with a word of its name, whole or its start, in any case", async () => {
    const arroz = withWords("Arroz");
    expect(arroz.length).toBeGreaterThan(200);
    const found = await search("arroz");
    expect(found.codes).toEqual(arroz);
    expect(found.total).toBe(arroz.length);
    expect(found.pages).toBe(Math.ceil(arroz.length / 24));
    expect((await search("ARROZ")).codes).toEqual(arroz);
    // "are" starts Arepa only; "ar" starts Arepa and Arroz: one word lists by the word it matched, then code.
    expect((await search("are")).codes).toEqual(withWords("Arepa"));
    expect((await search("ar")).codes).toEqual([...withWords("Arepa"), ...arroz]);
  });

  it("keeps accents as typed and needs every word typed", async () => {
    expect((await search("café")).codes).toEqual(withWords("Café"));
    expect((await search("Azúcar goya")).codes).toEqual(withWords("Azúcar", "Goya"));
    expect((await search("goya azú")).codes).toEqual(withWords("Azúcar", "Goya"));
    // "5" starts both "5 lb" and "500 g".
    expect((await search("arroz garza 5")).codes).toEqual(
      products.filter((p) => p.name.startsWith("Arroz La Garza 5")).map((p) => p.code),
    );
    expect((await search("arroz café")).codes).toEqual([]);
    // "sku" is in every code: the other word is intersected by key rather than checked one by one.
    expect((await search("sku az")).codes).toEqual(withWords("Azúcar"));
  });

  it("finds a product by its code or a barcode, searched or scanned", async () => {
    expect((await search("SKU-001234")).codes).toEqual(["SKU-001234"]);
    expect((await search("001234")).codes).toEqual(["SKU-001234"]);
    expect(await call("byCode", "SKU-001234")).toBe("SKU-001234");
    expect(await call("byCode", "7460000002001")).toBe("SKU-002001");
    expect(await call("byCode", "000000002001")).toBe("SKU-002001");
    expect((await search("7460000002001")).codes).toEqual(["SKU-002001"]);
    expect(await call("byCode", "7469999999999")).toBeUndefined();
  });

  it("with nothing typed, shows every product by name", async () => {
    const all = await call<{ total: number; items: { name: string }[] }>("search", "");
    expect(all).toMatchObject({ total: N });
  });

  it("lists a product with two words under the typed prefix once, and the last page's total counts products", async () => {
    await call("rename", "SKU-000022", "Panela panadera 1 lb");
    const pan = withWords("Pan").filter((c) => c !== "SKU-000022");
    const found = await search("pan");
    // "pan" < "panadera" < "panela": the index's order, the renamed product under its first word.
    expect(found.codes).toEqual([...pan, "SKU-000022"]);
    expect(new Set(found.codes).size).toBe(found.codes.length);
    // The first page counted index entries (the renamed product twice); the last read them all.
    expect(found.total).toBe(pan.length + 2);
    expect(found.lastTotal).toBe(pan.length + 1);
  });

  it("finds a renamed product by its new name only", async () => {
    expect(withWords("Arroz")).toContain("SKU-000011");
    await call("rename", "SKU-000011", "Zapote maduro");
    expect((await search("zapote")).codes).toEqual(["SKU-000011"]);
    expect((await search("arroz")).codes).not.toContain("SKU-000011");
  });
});
