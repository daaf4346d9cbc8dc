// The shared catalogue's CSV import as an operator runs it: a generated file of CATALOG_BENCH_N
// products (default 10,000) sent by `npm run admin -- products:import` to a private wrangler dev,
// checked whole in the worker and stored in one issuer-object transaction. Printed beside two
// references measured in the same run: the same file parsed and checked in Node by the worker's
// own CSV reader (the part of the import that is pure computation), and the CLI's own cost (a
// process that makes one trivial admin call). Then the same file again (every line unchanged) and
// the export back to a file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../scripts/local-stack.ts";
import { readProductsCsv } from "../worker/src/catalog/csv.ts";
import { admin, catalogCsv } from "./catalog-file.ts";
import { report } from "./lib.ts";

const N = Number(process.env.CATALOG_BENCH_N ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), "ecf-catalog-bench-"));
// Frozen: another developer's edit must not reload the worker in the middle of an import.
const stack = await startLocalStack({ frozen: true });
try {
  const file = join(dir, "products.csv");
  const csv = catalogCsv(N);
  writeFileSync(file, csv);

  // Reference 1: the same file parsed and checked in Node by the worker's own reader (median of 3).
  const parses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const { products, problemCount } = readProductsCsv(readFileSync(file, "utf8"));
    parses.push(performance.now() - start);
    if (problemCount || products.length !== N) throw new Error(`the bench file is not valid: ${problemCount} problems`);
  }
  const parseMs = parses.sort((a, b) => a - b)[1]!;

  const res = await fetch(`${stack.workerUrl}/admin/companies`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.adminSecret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ registryNumber: "131880681", name: "Supermercado Bench SRL", dgiiServer: "testecf" }),
  });
  const companyId = ((await res.json()) as { id: string }).id;
  const cli = (...args: string[]) => admin(stack.workerUrl, stack.adminSecret, ...args);

  // Reference 2: what the CLI costs by itself (Node start-up and one small admin request), median of 3.
  const cliAlone: number[] = [];
  for (let i = 0; i < 3; i++) cliAlone.push((await cli("companies:list", "--rnc", "131880681")).ms);
  const cliMs = cliAlone.sort((a, b) => a - b)[1]!;

  const first = await cli("products:import", "--company", companyId, "--file", file);
  const imported = JSON.parse(first.stdout) as { created: number; unchanged: number };
  if (imported.created !== N) throw new Error(`imported ${imported.created} of ${N}`);
  const again = await cli("products:import", "--company", companyId, "--file", file);
  if ((JSON.parse(again.stdout) as { unchanged: number }).unchanged !== N)
    throw new Error("the second import changed something");
  const out = join(dir, "out.csv");
  const exported = await cli("products:export", "--company", companyId, "--file", out);
  // The file is written as the export writes (code order, the same quoting), so it comes back byte for byte.
  if (readFileSync(out, "utf8") !== csv) throw new Error("the export is not the imported file");

  report(`catalog import ${N} products`, first.ms / 1000, "s");
  report(`catalog import ${N} products: reference, the same file parsed and checked in Node`, parseMs / 1000, "s");
  report(`catalog import ${N} products: reference, the admin CLI alone (one small request)`, cliMs / 1000, "s");
  report(`catalog import ${N} products ÷ (parse and check + CLI alone)`, first.ms / (parseMs + cliMs), "×");
  report(`catalog import ${N} products again (every line unchanged)`, again.ms / 1000, "s");
  report(`catalog export ${N} products to a file`, exported.ms / 1000, "s");
  report(`catalog file size`, Buffer.byteLength(csv) / 1024, "KiB");
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
