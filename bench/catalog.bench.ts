// The shared catalogue's CSV import as an operator runs it: a generated file of CATALOG_BENCH_N
// products (default 10,000) sent by `npm run admin -- products:import` to a private wrangler dev,
// checked whole in the worker and stored in one issuer-object transaction. Printed beside two
// references measured in the same run: the same file parsed and checked in Node by the worker's
// own CSV reader (the part of the import that is pure computation), and the CLI's own cost (a
// process that makes one trivial admin call). Then the same file again (every line unchanged) and
// the export back to a file.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../scripts/lib.mjs";
import { startLocalStack } from "../scripts/local-stack.ts";
import { readProductsCsv } from "../worker/src/catalog/csv.ts";
import { report } from "./lib.ts";

const N = Number(process.env.CATALOG_BENCH_N ?? 10_000);
const UNITS = ["43", "23", "21", "24", "6", "31"];

/** A store's catalogue: varied names (some quoted), one or two barcodes, every rate and kind. */
function catalogCsv(n: number): string {
  const lines = ["code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active"];
  for (let i = 0; i < n; i++) {
    const code = `SKU-${String(i).padStart(6, "0")}`;
    const barcodes =
      i % 3 === 0
        ? `746${String(i).padStart(10, "0")}|${String(i).padStart(12, "0")}`
        : `746${String(i).padStart(10, "0")}`;
    const name = i % 7 === 0 ? `"Producto ${i}, presentación ""familiar"""` : `Producto ${i} de la tienda`;
    const price = `${(i % 5000) + 1}.${String(i % 100).padStart(2, "0")}`;
    const rate = ["18", "18", "16", "0", "exempt"][i % 5];
    lines.push(
      `${code},${barcodes},${name},${price},${i % 4 !== 0},${rate},${UNITS[i % UNITS.length]},${i % 10 === 0 ? "service" : "good"},${i % 50 !== 0}`,
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Runs the admin CLI as `npm run admin --` does; resolves with its time and output, rejects on failure. */
function admin(workerUrl: string, adminSecret: string, ...args: string[]): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [join(root, "scripts", "admin.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, WORKER_URL: workerUrl, ADMIN_SECRET: adminSecret },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) =>
      status === 0
        ? resolve({ ms: performance.now() - start, stdout })
        : reject(new Error(`admin ${args[0]} exited ${status}: ${stderr}`)),
    );
  });
}

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
