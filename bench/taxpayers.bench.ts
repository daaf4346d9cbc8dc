// DGII's taxpayer registry at its real size: a generated DGII_RNC.zip of 500,000 taxpayers
// (TAXPAYERS_BENCH_N) imported through the CLI (`npm run admin -- taxpayers:import`, a separate
// process with its heap capped, so a CLI that held the file would fail) into a private wrangler
// dev, beside the reference measured in the same run: reading and parsing the same zip alone in
// this process. The CLI's peak memory is shown beside its peak on a file 50 times smaller (flat,
// since the file is streamed). Then lookups (GET /contribuyentes/{rnc}) in the imported registry
// beside GET /health. Refuses to print figures unless every row was imported.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../scripts/lib.mjs";
import { startLocalStack } from "../scripts/local-stack.ts";
import { sampleTaxpayer, writeSampleRegistryZip } from "../scripts/taxpayer-registry-sample.ts";
import { parseRegistryLine, registryLines } from "../scripts/taxpayers-import.mjs";
import { percentile, report } from "./lib.ts";

const N = Number(process.env.TAXPAYERS_BENCH_N ?? 500_000);
/** The CLI's heap cap: the file is ~75 MB of text at 500,000 rows, so only streaming fits. */
const CLI_HEAP_MB = 64;
const LOOKUPS = 200;

const dir = mkdtempSync(join(tmpdir(), "ecf-taxpayers-bench-"));
const file = join(dir, "DGII_RNC.zip");
const sample = await writeSampleRegistryZip(file, { count: N });

// Reference: the same zip read and parsed in this process, nothing sent.
const t0 = performance.now();
let parsed = 0;
for await (const { text } of registryLines(file)) if (parseRegistryLine(text).row) parsed++;
const readSeconds = (performance.now() - t0) / 1000;
if (parsed !== N) throw new Error(`the sample has ${parsed} rows, expected ${N}`);

const smallFile = join(dir, "DGII_RNC-small.zip");
await writeSampleRegistryZip(smallFile, { count: Math.floor(N / 50) });

const stack = await startLocalStack({ frozen: true });

/** Runs the CLI on a zip: its wall time, its peak resident memory (Linux's VmHWM), and a check that every row arrived. */
async function runImport(zip: string, rows: number) {
  const started = performance.now();
  const cli = spawn(
    process.execPath,
    [`--max-old-space-size=${CLI_HEAP_MB}`, join(root, "scripts", "admin.mjs"), "taxpayers:import", "--file", zip],
    {
      cwd: root,
      env: { ...process.env, WORKER_URL: stack.workerUrl, ADMIN_SECRET: stack.adminSecret },
    },
  );
  let stdout = "";
  let stderr = "";
  cli.stdout.on("data", (d) => (stdout += d));
  cli.stderr.on("data", (d) => (stderr += d));
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${cli.pid}/status`, "utf8"));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {}
  }, 100);
  const status = await new Promise<number | null>((resolve) => cli.on("close", resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (status !== 0) throw new Error(`taxpayers:import failed (${status}):\n${stderr}`);
  const summary = JSON.parse(stdout) as { rows: number };
  if (summary.rows !== rows) throw new Error(`refusing to measure: ${summary.rows} rows imported of ${rows}`);
  return { seconds, peakKb };
}

try {
  // A registry 50 times smaller first: the CLI's peak memory should not grow with the file.
  const small = await runImport(smallFile, Math.floor(N / 50));
  const large = await runImport(file, N);

  console.log(
    `taxpayer registry import ${N} rows: ${large.seconds.toFixed(1)} s (${Math.round(N / large.seconds)} rows/s)`,
  );
  console.log(
    `taxpayer registry read+parse alone ${N} rows: ${readSeconds.toFixed(1)} s (${Math.round(N / readSeconds)} rows/s)`,
  );
  report("taxpayer registry import vs read+parse alone", large.seconds / readSeconds, "×");
  report("taxpayer registry zip", sample.uncompressedBytes / 1e6, "MB uncompressed");
  report(`taxpayer registry CLI peak RSS, ${N} rows`, large.peakKb / 1024, `MB (heap capped at ${CLI_HEAP_MB} MB)`);
  report(`taxpayer registry CLI peak RSS, ${Math.floor(N / 50)} rows (reference)`, small.peakKb / 1024, "MB");

  // Lookups in the imported registry, beside the cheapest route at the same time.
  const admin = (path: string, body: unknown) =>
    fetch(`${stack.workerUrl}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${stack.adminSecret}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  const company = await admin("/admin/companies", {
    rnc: "131880681",
    legalName: "Bench Comercial SRL",
    dgiiEnvironment: "testecf",
  });
  const key = await admin("/admin/keys", { ownerType: "company", ownerId: company.id, kind: "test" });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiKey: key.apiKey, apiSecret: key.apiSecret }),
  });
  const { token } = (await login.json()) as { token: string };
  const lookups: number[] = [];
  const health: number[] = [];
  for (let k = 0; k < LOOKUPS; k++) {
    const expected = sampleTaxpayer((k * 7919) % N);
    let t = performance.now();
    const res = await fetch(`${stack.workerUrl}/contribuyentes/${expected.rnc}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { legalName?: string };
    lookups.push(performance.now() - t);
    if (body.legalName !== expected.legalName)
      throw new Error(`lookup of ${expected.rnc} answered ${JSON.stringify(body)}`);
    t = performance.now();
    await (await fetch(`${stack.workerUrl}/health`)).arrayBuffer();
    health.push(performance.now() - t);
  }
  report(`taxpayer lookup in ${N} rows p50`, percentile(lookups, 50), "ms");
  report(`taxpayer lookup in ${N} rows p99`, percentile(lookups, 99), "ms");
  report("GET /health p50 (reference)", percentile(health, 50), "ms");
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
