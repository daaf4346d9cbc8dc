// DGII certification, as `npm run certify` runs it: the ECF and RFCE sheets of the three
// taxpayers' "Pruebas de Datos" sets in vendor/dgii/testsets go through the
// real issuing API of one local stack (wrangler dev + the DGII sandbox). Every case must be
// Aceptado; every E32 below 250,000 must have reached the sandbox as an RFCE, the rest as an e-CF.
// The futureman set's FechaVencimientoSecuencia (31-12-2025) is past: --renew-expired registers
// its ranges until next year and the signed e-CF must carry that date.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTestSet } from "@ecf/shared/testset";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { certify, type CertifyResult, type Outcome } from "../../scripts/certify-lib/run.ts";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";
import { DGII_KIT } from "@ecf/shared/test-support/kit";

const TESTSETS = join(DGII_KIT, "testsets");
const SETS = [
  { name: "BlueFireRD 133470616", stem: "BlueFireRD_adse-dgii-ecf-engine__dataset_133470616" },
  { name: "futureman 132641566", stem: "futureman0105_odoo-dgii-ecf-data-test__test_data_132641566" },
  { name: "jmtrinidad 133009889", stem: "jmtrinidad_ZynstormECFPlatform__133009889-16042026193727" },
] as const;
const sheet = (stem: string, kind: "ECF" | "RFCE") => join(TESTSETS, `${stem}__${kind}.csv`);
const rowsOf = (file: string) =>
  readTestSet(readFileSync(file, "utf8"))
    .rows.map((r) => r.casoPrueba)
    .sort();

let stack: LocalStack;
let out: string;
const results = new Map<string, { ecf: CertifyResult; rfce: CertifyResult }>();

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "ecf-certify-"));
  // A quick sandbox and short in-request polling keep 75+ issuances within CI time.
  // Frozen: one build of the worker for the whole run, whatever is edited meanwhile.
  stack = await startLocalStack({
    processingMs: 50,
    pollDelaysMs: "100,200,400,800,1600,3200",
    logFile: join(out, "worker.log"),
    frozen: true,
  });
  const target = { workerUrl: stack.workerUrl, adminSecret: stack.adminSecret, sandboxUrl: stack.sandboxUrl };
  // The three issuers are independent: run them side by side. Within one issuer the ECF sheet goes
  // first (numbers are taken in order), then its RFCE sheet, whose E32 are by then already accepted.
  await Promise.all(
    SETS.map(async ({ stem }) => {
      // On 2 busy cores a receipt can outlast the in-request polling; the ledger's alarm (back-off 1, 2,
      // 4, 8, 16… s) then finishes it: allow it two minutes.
      const run = (kind: "ECF" | "RFCE") =>
        certify(target, { file: sheet(stem, kind), out: join(out, stem, kind), renewExpired: true, settleMs: 120_000 });
      const ecf = await run("ECF");
      const rfce = await run("RFCE");
      results.set(stem, { ecf, rfce });
    }),
  );
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  const failed = [...results.values()].some(
    ({ ecf, rfce }) => notAccepted(ecf.outcomes).length + notAccepted(rfce.outcomes).length > 0,
  );
  // Keep the signed XML and the worker's log when a case failed, to see why.
  if (failed || results.size < SETS.length) console.warn(`certification output kept in ${out}`);
  else if (out) rmSync(out, { recursive: true, force: true });
});

/** One line per case that is not Aceptado, with DGII's or the service's messages. */
const notAccepted = (outcomes: readonly Outcome[]) =>
  outcomes.filter((o) => o.estado !== "Aceptado").map((o) => `${o.c.caso} ${o.estado}: ${o.mensajes.join(" | ")}`);

describe.each(SETS)("DGII test set $name", ({ stem }) => {
  it("ECF sheet: every case is issued through the API and Aceptado, each on its path", () => {
    const { ecf } = results.get(stem)!;
    expect(ecf.sheet).toBe("ECF");
    expect(ecf.outcomes.map((o) => o.c.caso).sort()).toEqual(rowsOf(sheet(stem, "ECF")));
    expect(notAccepted(ecf.outcomes)).toEqual([]);
    for (const o of ecf.outcomes) {
      expect(o.reenviado, o.c.caso).toBe(false);
      // E32 below 250,000 → the RFCE summary; everything else → the full e-CF. Once each.
      expect(o.path, o.c.caso).toBe(o.c.rfce ? "RFCE" : "ECF");
      expect(o.sandboxKinds, o.c.caso).toEqual([o.c.rfce ? "rfce" : "ecf"]);
      expect(readFileSync(o.xmlFile!, "utf8")).toContain(`<eNCF>${o.c.encf}</eNCF>`);
    }
    expect(ecf.outcomes.some((o) => o.c.rfce)).toBe(true);
    expect(ecf.outcomes.some((o) => o.c.tipo === "32" && !o.c.rfce)).toBe(true);
  });

  it("RFCE sheet: every case took the RFCE path and is Aceptado, sent to DGII only once", () => {
    const { ecf, rfce } = results.get(stem)!;
    expect(rfce.sheet).toBe("RFCE");
    const rfceRows = rowsOf(sheet(stem, "RFCE"));
    expect(rfceRows.length).toBeGreaterThan(0);
    expect(rfce.outcomes.map((o) => o.c.caso).sort()).toEqual(rfceRows);
    expect(notAccepted(rfce.outcomes)).toEqual([]);
    for (const o of rfce.outcomes) {
      expect(o.c.tipo, o.c.caso).toBe("32");
      expect(o.path, o.c.caso).toBe("RFCE");
      // Issued by the ECF sheet already: an idempotent resend, nothing sent again.
      expect(o.reenviado, o.c.caso).toBe(true);
      expect(o.sandboxKinds, o.c.caso).toEqual(["rfce"]);
    }
    // The RFCE sheet is exactly the ECF sheet's E32 below 250,000.
    expect(rfce.outcomes.map((o) => o.c.encf).sort()).toEqual(
      ecf.outcomes
        .filter((o) => o.c.rfce)
        .map((o) => o.c.encf)
        .sort(),
    );
  });
});

it("--renew-expired: the futureman ranges (FechaVencimientoSecuencia 31-12-2025) are registered until next year", () => {
  const { ecf } = results.get(SETS[1].stem)!;
  const year = new Date(Date.now() - 4 * 3_600_000).getUTCFullYear();
  expect(ecf.notes.some((n) => n.includes("2025-12-31 is past") && n.includes("--renew-expired"))).toBe(true);
  const renewed = ecf.ranges.filter((r) => r.expiresOn === `${year + 1}-12-31`);
  expect(renewed.length).toBeGreaterThan(0);
  const signed = ecf.outcomes.filter(
    (o) =>
      renewed.some((r) => r.tipo === o.c.tipo) && /<FechaVencimientoSecuencia>/.test(readFileSync(o.xmlFile!, "utf8")),
  );
  expect(signed.length).toBeGreaterThan(0);
  for (const o of signed)
    expect(readFileSync(o.xmlFile!, "utf8")).toContain(
      `<FechaVencimientoSecuencia>31-12-${year + 1}</FechaVencimientoSecuencia>`,
    );
});
