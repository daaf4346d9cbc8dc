// DGII certification from the postulación to Finalizado, as `npm run certify -- --walk` runs it,
// against one local stack (wrangler dev + the DGII sandbox playing certecf and its portal): a new
// issuer's signed postulación and declaración (xmlsec1 judges them, and they name the
// representative), the ECF/RFCE sheet and the approvals sheet, the simulation and its printed
// copies in one PDF, DGII's e-CF delivered to the worker's receiver with a signed ARECF back, approvals both
// ways, the production URLs; the worker's run ends certified and survives a restart of the worker.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { xmlsecVerify } from "@ecf/shared/test-support/certs";
import { DGII_KIT } from "@ecf/shared/test-support/kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { walkCertification, type WalkResult } from "../../scripts/certify-lib/certification.ts";
import { adminApi } from "../../scripts/certify-lib/issuer.ts";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";

const STEM = "BlueFireRD_adse-dgii-ecf-engine__";
const REPRESENTATIVE = { cedula: "00112345678", name: "MARIA PEREZ" };
let stack: LocalStack;
let out: string;
let walk: WalkResult;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "ecf-certify-walk-"));
  stack = await startLocalStack({ processingMs: 50, pollDelaysMs: "100,200,400,800,1600,3200", frozen: true });
  walk = await walkCertification(stack, {
    ecfSheet: join(DGII_KIT, "testsets", `${STEM}dataset_133470616__ECF.csv`),
    approvalsSheet: join(DGII_KIT, "testsets", `${STEM}acecf_dataset_133470616__ACEECF_Generadas.csv`),
    out,
    representative: REPRESENTATIVE,
    productionOrigin: "https://ecf.example.do",
    log: (line) => console.log(line),
  });
}, 600_000);

afterAll(async () => {
  await stack?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

it("signs the postulación and the declaración as the representative (xmlsec1) and names them", () => {
  for (const file of [walk.files.postulacion, walk.files.declaracion]) {
    const xml = readFileSync(file, "utf8");
    expect(xmlsecVerify(xml, walk.representativePem)).toMatchObject({ ok: true });
    expect(xml).toContain(`<Cedula>${REPRESENTATIVE.cedula}</Cedula><Nombre>${REPRESENTATIVE.name}</Nombre>`);
  }
});

it("passes the three data sheets: every e-CF and RFCE Aceptado, every approval taken", () => {
  expect(walk.dataTests.outcomes.filter((o) => o.estado !== "Aceptado").map((o) => o.c.caso)).toEqual([]);
  expect(walk.approvals.length).toBeGreaterThan(0);
  expect(walk.approvals.filter((a) => a.status !== 200)).toEqual([]);
  const step = (id: string) => walk.run.steps.find((s: { id: string }) => s.id === id);
  expect(step("pruebas-datos-ecf")).toMatchObject({ state: "completed" });
  expect(step("pruebas-datos-aprobacion-comercial")).toMatchObject({ state: "completed" });
});

it("follows the simulation to DGII's verdict and its printed copy fits DGII's limit", () => {
  expect(walk.simulation.map((s) => s.estado).every((e) => e === "Aceptado")).toBe(true);
  const size = statSync(walk.files.printedCopies).size;
  expect(size).toBeGreaterThan(0);
  expect(size).toBeLessThan(10 * 1024 * 1024);
  // One valid PDF holding every simulation invoice (each prints on one A4 page): poppler reads it whole.
  const info = execFileSync("pdfinfo", [walk.files.printedCopies], { encoding: "utf8" });
  expect(Number(/^Pages:\s+(\d+)/m.exec(info)?.[1])).toBe(walk.simulation.length);
  expect(walk.simulation.length).toBeGreaterThan(1);
  const images = mkdtempSync(join(tmpdir(), "ecf-printed-copies-"));
  execFileSync("pdftoppm", ["-r", "20", "-png", walk.files.printedCopies, join(images, "page")]);
  expect(readdirSync(images).filter((f) => f.endsWith(".png"))).toHaveLength(walk.simulation.length);
  rmSync(images, { recursive: true, force: true });
});

it("checks the worker's own receiver as DGII calls it: token, signed ARECF, approval, capitalised paths", () => {
  expect(walk.receiverCheck.checks.filter((c) => !c.ok)).toEqual([]);
  expect(walk.receiverCheck.checks.map((c) => c.id)).toEqual([
    "semilla",
    "validacion-certificado",
    "recepcion",
    "aprobacion-comercial",
    "mayusculas",
  ]);
  expect(walk.receiverCheck.checks.find((c) => c.id === "mayusculas")!.url).toContain("/Autenticacion/api/Semilla");
  expect(walk.receiverCheck.ok).toBe(true);
});

it("takes DGII's e-CF at the worker's receiver with a signed ARECF, and ends certified", () => {
  const step = (id: string) => walk.run.steps.find((s: { id: string }) => s.id === id);
  expect(step("recepcion-ecf").detail).toMatch(/acuse de recibo firmado/);
  expect(step("aprobacion-comercial")).toMatchObject({ state: "completed" });
  expect(walk.run).toMatchObject({ certified: true, currentStep: null });
  expect(walk.run.steps.every((s: { state: string }) => s.state === "completed")).toBe(true);
});

it("keeps the run across a restart of the worker", async () => {
  await stack.restartWorker();
  const admin = adminApi(stack.workerUrl, stack.adminSecret);
  const { data: found } = await admin.GET("/admin/companies", { params: { query: { registryNumber: walk.rnc } } });
  const { data: key } = await admin.POST("/admin/keys", {
    body: { ownerType: "company", ownerId: found!.companies[0]!.id, kind: "test" },
  });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ apiKey: key!.apiKey, apiSecret: key!.apiSecret }),
  });
  const { token } = (await login.json()) as { token: string };
  const run = await fetch(`${stack.workerUrl}/company/certification`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(await run.json()).toMatchObject({ certified: true, steps: walk.run.steps });
});
