// A till with a supermarket's catalogue, the largest the till is sized for: TILL_CATALOG_N products
// (default 50,000) imported by `npm run admin -- products:import`, a till paired in Chromium, then
// with the till's own code: the first catalogue sync (beside fetching the same pages without
// storing them), the IndexedDB space it takes (beside the CSV file), the sale screen loading the
// catalogue, and the search the sale screen runs per text typed, by name word, name prefix, code
// and barcode, p50/p99 (goal < 50 ms), beside reading one product by its key.
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { buildPos, startStack } from "@ecf/pos-client/test-support/pos-stack";
import { admin, catalogCsv } from "./catalog-file.ts";
import { percentile, report } from "./lib.ts";

const N = Number(process.env.TILL_CATALOG_N ?? 50_000);
const QUERIES = 100;
const IMPORT_CHUNK = 10_000;
const RNC = "131880681";
const SEARCH_GOAL_MS = 50;

// Names as a supermarket's shelf has them: product, brand, variety, size.
const NOUNS = ["Arroz", "Habichuelas", "Aceite", "Leche", "Café", "Azúcar", "Salami", "Queso", "Pan", "Galletas"]
  .concat(["Jugo", "Refresco", "Agua", "Cerveza", "Ron", "Detergente", "Jabón", "Papel", "Pasta", "Sardinas"])
  .concat(["Atún", "Harina", "Avena", "Cereal", "Mantequilla", "Yogur", "Huevos", "Pollo", "Chuleta", "Plátano"]);
const BRANDS = ["La Garza", "Selecto", "Goya", "Rica", "Induveca", "Baldom", "Mazola", "Carbonell", "Campos"].concat([
  "Presidente",
  "Brugal",
  "Colgate",
  "Nestlé",
  "Milex",
  "Mi Sazón",
]);
const VARIETIES = ["integral", "light", "clásico", "premium", "familiar", "orgánico", "picante", "dulce", "natural"];
const SIZES = ["1 lb", "5 lb", "500 g", "1 L", "2 L", "12 oz", "355 ml", "24 uds", "1 gal", "250 g"];
const shelfName = (i: number) =>
  `${NOUNS[i % 30]} ${BRANDS[Math.floor(i / 30) % 15]} ${VARIETIES[Math.floor(i / 450) % 9]} ${SIZES[Math.floor(i / 4050) % 10]}`;

/** QUERIES texts of each kind a cashier types or scans, spread over the catalogue. */
function queries(): Record<string, string[]> {
  // Spread over the catalogue, skipping the products the file makes inactive (every 50th).
  const pick = (k: number) => Math.floor(((k * 7919) % QUERIES) * (N / QUERIES)) + 1 + (k % 7);
  const kinds: Record<string, (i: number) => string> = {
    "name word": (i) => NOUNS[i % 30]!.toLowerCase(),
    "name prefix (3 letters)": (i) => BRANDS[i % 15]!.slice(0, 3).toLowerCase(),
    code: (i) => `SKU-${String(i).padStart(6, "0")}`,
    barcode: (i) => `746${String(i).padStart(10, "0")}`,
  };
  return Object.fromEntries(
    Object.entries(kinds).map(([kind, of]) => [kind, Array.from({ length: QUERIES }, (_, k) => of(pick(k)))]),
  );
}

buildPos();
const dir = mkdtempSync(join(tmpdir(), "ecf-till-catalog-bench-"));
const [stack, identity] = await Promise.all([startStack({ frozen: true }), createTestIdentity({ rnc: RNC })]);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
});
try {
  const company = await stack.admin<{ id: string }>("POST", "/admin/companies", {
    name: "SUPERMERCADO BENCH SRL",
    registryNumber: RNC,
    address: "Calle 1",
    dgiiServer: "testecf",
  });
  const form = new FormData();
  form.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
  form.set("password", "clave");
  await stack.admin("PUT", `/admin/companies/${company.id}/certificate`, form);
  await stack.admin("PUT", `/admin/companies/${company.id}/sequences/32`, {
    rangeFrom: 1,
    rangeTo: 1_000_000,
    expiresOn: "2099-12-31",
  });
  // In files of IMPORT_CHUNK lines: an import request is limited to 2 MiB.
  const csv = catalogCsv(N, shelfName);
  const [header, ...rows] = csv.trimEnd().split("\r\n");
  let created = 0;
  for (let from = 0; from < rows.length; from += IMPORT_CHUNK) {
    const file = join(dir, `products-${from}.csv`);
    writeFileSync(file, `${[header, ...rows.slice(from, from + IMPORT_CHUNK)].join("\r\n")}\r\n`);
    const imported = await admin(
      stack.workerUrl,
      stack.adminSecret,
      "products:import",
      "--company",
      company.id,
      "--file",
      file,
    );
    created += (JSON.parse(imported.stdout) as { created: number }).created;
  }
  if (created !== N) throw new Error(`imported ${created} of ${N} products`);
  const device = await stack.admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
    name: "Caja 1",
  });

  const bundle = await build({
    entryPoints: [fileURLToPath(import.meta.resolve("@ecf/pos-client/test-support/till-catalog-page"))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const page = await browser.newPage();
  await page.goto(`${stack.workerUrl}/pos/`);
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  const call = <T>(name: string, ...args: unknown[]) =>
    page.evaluate(
      ([n, a]) =>
        (globalThis as unknown as { tillCatalog: Record<string, (...x: unknown[]) => unknown> }).tillCatalog[n]!(...a),
      [name, args] as const,
    ) as Promise<T>;

  const { usageBefore } = await call<{ usageBefore: number }>("setup", device.pairingCode);
  const sync = await call<{ ms: number; pages: number; stored: number; usage: number; fetchOnlyMs: number }>(
    "firstSync",
  );
  report(`till catalog ${N} products: first sync`, sync.ms / 1000, `s (${sync.pages} pages, ${sync.stored} on sale)`);
  report("till catalog first sync: reference, the same pages fetched without storing", sync.fetchOnlyMs / 1000, "s");
  report("till catalog first sync / fetch alone", sync.ms / sync.fetchOnlyMs, "×");
  report("till catalog IndexedDB size (storage.estimate)", (sync.usage - usageBefore) / 2 ** 20, "MiB");
  report("till catalog IndexedDB size: reference, the CSV file", Buffer.byteLength(csv) / 2 ** 20, "MiB");

  const open = await call<{ ms: number }>("openSaleScreen");
  report("till catalog sale screen opens (first page by name)", open.ms, "ms");
  for (const [kind, texts] of Object.entries(queries())) {
    const r = await call<{ ms: number[]; found: number[]; keyReadMs: number[] }>("search", texts);
    if (r.found.some((f) => f === 0)) throw new Error(`a ${kind} search found nothing`);
    report(`till catalog search by ${kind} p50`, percentile(r.ms, 50), `ms (goal < ${SEARCH_GOAL_MS} ms)`);
    report(`till catalog search by ${kind} p99`, percentile(r.ms, 99), `ms (goal < ${SEARCH_GOAL_MS} ms)`);
    report(`till catalog search by ${kind}: reference, one product read by key p50`, percentile(r.keyReadMs, 50), "ms");
  }
} finally {
  await browser.close();
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
