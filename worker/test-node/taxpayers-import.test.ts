// `npm run admin -- taxpayers:import --file DGII_RNC.zip` as an operator runs it, against a real
// local stack (wrangler dev, D1): a registry zip in DGII's format (ISO-8859-1, CRLF, 11 "|" fields,
// a few odd lines as the real file has) is streamed, imported in chunks and committed; lookups
// answer what the file says; a second import replaces the first whole and the replaced rows are
// purged; a damaged zip fails the command and leaves the registry as it was.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";
import { adminApiCall, runAdminCli } from "./support/admin-cli.ts";
import {
  importSampleRegistry,
  sampleTaxpayer,
  writeSampleRegistryZip,
  type WrittenSample,
} from "../../scripts/taxpayer-registry-sample.ts";

let stack: LocalStack;
let dir: string;
let token: string;

const admin = (...args: string[]) => runAdminCli(stack, ...args);
const adminApi = (method: string, path: string, body?: unknown) => adminApiCall(stack, method, path, body);

const lookup = (rnc: string) =>
  fetch(`${stack.workerUrl}/contribuyentes/${rnc}`, { headers: { Authorization: `Bearer ${token}` } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ecf-taxpayers-"));
  // Frozen: another developer's edit must not reload the worker in the middle of an import.
  stack = await startLocalStack({ frozen: true });
  const company = await adminApi("POST", "/admin/companies", {
    registryNumber: "131880681",
    name: "Comprobantes SRL",
    dgiiServer: "testecf",
  });
  const key = await adminApi("POST", "/admin/keys", { ownerType: "company", ownerId: company.id, kind: "test" });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiKey: key.apiKey, apiSecret: key.apiSecret }),
  });
  token = ((await login.json()) as { token: string }).token;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run admin -- taxpayers:import", () => {
  const COUNT = 20_000;
  let first: WrittenSample;
  let firstImport: { importId: number; rows: number; importedAt: string };

  it("imports DGII's zip: every taxpayer, odd lines reported by number, progress and the count printed", async () => {
    first = await writeSampleRegistryZip(join(dir, "DGII_RNC.zip"), {
      count: COUNT,
      oddLines: [
        { after: 10, kind: "broken-record" },
        { after: 5000, kind: "pipe-in-name" },
        { after: 12_345, kind: "bad-date" },
      ],
    });
    const run = await admin("taxpayers:import", "--file", first.file, "--chunk", "3000");
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    firstImport = summary;
    expect(summary).toMatchObject({ rows: first.taxpayers, lines: first.lines, skippedLines: 1, linesWithProblems: 3 });
    // The record broken by a line break: its head is kept (reported), its tail has no RNC (skipped).
    expect(summary.firstProblems.map((p: { line: number }) => p.line)).toEqual(first.oddLines.map((o) => o.line));
    expect(summary.firstProblems[1].problem).toMatch(/^skipped: no RNC/);
    expect(summary.firstProblems[2].problem).toMatch(/12 fields/);
    expect(summary.firstProblems[3].problem).toMatch(/2010-06-15/);
    expect(run.stderr).toMatch(/rows sent \(\d+ % of the file read\)/);
    expect(run.stderr).toContain(`${first.taxpayers.toLocaleString("en")} taxpayers imported`);
    expect(run.stderr).toContain(`line ${first.oddLines[1]!.line}: skipped: no RNC`);

    const status = await adminApi("GET", "/admin/taxpayers");
    expect(status.current).toEqual({
      importId: summary.importId,
      rows: first.taxpayers,
      importedAt: summary.importedAt,
    });
  }, 300_000);

  it("lookups answer what the file says: Latin-1 names read right, status, dates, nulls", async () => {
    for (const i of [0, 1, 2, 3, 5, 7, 10, 12, 999, 5000, 12_345, COUNT - 1]) {
      const expected = sampleTaxpayer(i);
      const res = await lookup(expected.rnc);
      expect(res.status, expected.rnc).toBe(200);
      expect(await res.json()).toEqual({
        ...expected,
        active: expected.status === "ACTIVO",
        registryImportedAt: firstImport.importedAt,
      });
    }
    expect(await (await lookup(sampleTaxpayer(2).rnc)).json()).toMatchObject({
      legalName: expect.stringMatching(/^ÁNGEL NÚÑEZ /),
    });
    // The line with a "|" in the name is kept; the one with a bad date has no date.
    expect(await (await lookup("131000001")).json()).toMatchObject({
      legalName: "FERRETERÍA LA",
      status: "ACTIVO",
      registeredOn: "2010-06-15",
    });
    expect(await (await lookup("131000002")).json()).toMatchObject({
      legalName: "PANADERÍA FECHA RARA SRL",
      registeredOn: null,
    });
    expect((await lookup(String(101_000_000 + COUNT + 5))).status).toBe(404);
  }, 120_000);

  it("a second import replaces the first whole; the replaced rows are purged", async () => {
    const second = await writeSampleRegistryZip(join(dir, "DGII_RNC-2.zip"), { count: 15_000, edition: " II" });
    const run = await admin("taxpayers:import", "--file", second.file);
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({
      rows: 15_000,
      skippedLines: 0,
      linesWithProblems: 0,
      replacedRowsDeleted: first.taxpayers,
    });
    expect(await (await lookup(sampleTaxpayer(42).rnc)).json()).toMatchObject({
      legalName: sampleTaxpayer(42, " II").legalName,
      registryImportedAt: summary.importedAt,
    });
    // Only in the first file: gone with it.
    expect((await lookup(sampleTaxpayer(17_000).rnc)).status).toBe(404);
    expect((await lookup("131000001")).status).toBe(404);
    const status = await adminApi("GET", "/admin/taxpayers");
    expect(status).toMatchObject({ current: { importId: summary.importId, rows: 15_000 }, purgePending: false });
    expect(status.imports.find((i: { importId: number }) => i.importId === firstImport.importId)).toMatchObject({
      state: "replaced",
    });
    const again = await admin("taxpayers:status");
    expect(JSON.parse(again.stdout).current.importId).toBe(summary.importId);
  }, 300_000);

  it("a damaged zip fails the command, abandons its import and leaves the registry as it was", async () => {
    const before = (await adminApi("GET", "/admin/taxpayers")).current;
    const good = await writeSampleRegistryZip(join(dir, "damaged.zip"), { count: 12_000, edition: " ROTO" });
    const bytes = readFileSync(good.file);
    // Flip bytes well inside the deflated data: the inflater or the CRC check notices.
    for (let k = 0; k < 16; k++) bytes[Math.floor(bytes.length * 0.8) + k]! ^= 0x5a;
    writeFileSync(good.file, bytes);
    const run = await admin("taxpayers:import", "--file", good.file, "--chunk", "2000");
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/damaged|invalid|incorrect|unexpected end/i);
    const status = await adminApi("GET", "/admin/taxpayers");
    expect(status.current).toEqual(before);
    expect(status.imports[0]).toMatchObject({ state: "abandoned" });
    expect(await (await lookup(sampleTaxpayer(1).rnc)).json()).toMatchObject({
      legalName: sampleTaxpayer(1, " II").legalName,
    });

    const notAZip = join(dir, "DGII_RNC.TXT");
    writeFileSync(notAZip, "131880681|NO SOY UN ZIP SRL\r\n");
    const refused = await admin("taxpayers:import", "--file", notAZip);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/not a zip file/);
    const missing = await admin("taxpayers:import");
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("--file");
  }, 300_000);

  it("importSampleRegistry (for the till's browser tests) imports a sample through the same module", async () => {
    const imported = await importSampleRegistry(stack.workerUrl, stack.adminSecret, { count: 500, edition: " CAJA" });
    expect(imported.summary).toMatchObject({ rows: 500, skippedLines: 0 });
    expect(await (await lookup(sampleTaxpayer(499).rnc)).json()).toMatchObject({
      legalName: sampleTaxpayer(499, " CAJA").legalName,
      registryImportedAt: imported.summary.importedAt,
    });
  }, 120_000);
});
