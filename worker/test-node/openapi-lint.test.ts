// /openapi.json as the tools integrators run read it: the document the split build serves (what
// `npm run deploy` uploads), linted by Redocly CLI with its recommended ruleset and by Spectral
// with spectral:oas, at the versions pinned in package.json. Neither may report an error, and no
// example may contradict its schema (Redocly reports those as warnings). Whatever routes the
// document holds are linted: a new route with an undeclared field or an unnamed webhook fails here.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../../scripts/lib.mjs";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";

let stack: LocalStack;
let dir: string;
let documentFile: string;

beforeAll(async () => {
  stack = await startLocalStack({ frozen: true });
  dir = mkdtempSync(join(tmpdir(), "ecf-openapi-lint-"));
  documentFile = join(dir, "openapi.json");
  const res = await fetch(`${stack.workerUrl}/openapi.json`);
  expect(res.status).toBe(200);
  writeFileSync(documentFile, await res.text());
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter from node_modules/.bin; its JSON report (both exit non-zero when they find errors). */
function lint(bin: string, args: string[]): unknown {
  const run = spawnSync(join(root, "node_modules/.bin", bin), args, {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  const out = run.stdout.slice(run.stdout.search(/[[{]/));
  try {
    return JSON.parse(out);
  } catch {
    throw new Error(`${bin} wrote no JSON report (status ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
}

const pinned = (name: string) =>
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> })
    .devDependencies[name];
const installed = (name: string) =>
  (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

describe("/openapi.json read by third-party linters", () => {
  it("runs the pinned linters", () => {
    expect(installed("@redocly/cli")).toBe(pinned("@redocly/cli"));
    expect(installed("@stoplight/spectral-cli")).toBe(pinned("@stoplight/spectral-cli"));
  });

  it("passes Redocly's recommended ruleset: no error, no invalid example", () => {
    const report = lint("redocly", [
      "lint",
      "--extends",
      "recommended",
      "--format",
      "json",
      "--max-problems",
      "100000",
      documentFile,
    ]) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    const failing = report.problems
      .filter((p) => p.severity === "error" || /invalid.*example/.test(p.ruleId))
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(failing).toEqual([]);
    // No two paths can match one URL (the till-administration ones live under /tills, not /devices).
    const ambiguous = report.problems
      .filter((p) => p.ruleId === "no-ambiguous-paths")
      .map((p) => `${p.location[0]?.pointer}: ${p.message}`);
    expect(ambiguous).toEqual([]);
    // The report is real: the document was read (the recommended ruleset always has a remark on it).
    expect(report.problems.length).toBeGreaterThan(0);
  });

  it("passes Spectral's spectral:oas: no error", () => {
    writeFileSync(join(dir, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
    const results = lint("spectral", ["lint", "--ruleset", ".spectral.yaml", "--format", "json", documentFile]) as {
      code: string;
      severity: number;
      message: string;
      path: (string | number)[];
    }[];
    // Severity 0 is an error.
    const errors = results.filter((r) => r.severity === 0).map((r) => `${r.code} ${r.path.join("/")}: ${r.message}`);
    expect(errors).toEqual([]);
  });

  it("tells the ten e-CF request schemas apart by type: each requires its own TipoeCF", () => {
    const doc = JSON.parse(readFileSync(documentFile, "utf8"));
    const branches = doc.components.schemas.EcfRequest.oneOf.map((b: { $ref: string }) => b.$ref.split("/").at(-1));
    expect(branches).toHaveLength(10);
    for (const name of branches) {
      const schema = doc.components.schemas[name];
      const encabezado = schema.properties.Encabezado;
      const idDoc = encabezado.properties.IdDoc;
      expect(schema.required, name).toContain("Encabezado");
      expect(encabezado.required, name).toContain("IdDoc");
      expect(idDoc.required, name).toContain("TipoeCF");
      // One type per branch, as a string or a number: no example can match two of them.
      const tipo = name.replace("EcfRequestE", "");
      expect(idDoc.properties.TipoeCF.enum, name).toEqual([tipo, Number(tipo)]);
    }
  });
});
