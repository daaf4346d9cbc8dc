// The provider path from end to end, against one local stack: a software house certifies itself as
// provider (the full walk, applicant "provider"), then one of its clients walks DGII's short path
// (simulation, the printed copies in one PDF, production URLs, declaración, status) and ends
// certified, the steps a provider's client skips marked so by the worker and by DGII's portal.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { xmlsecVerify } from "@ecf/shared/test-support/certs";
import { DGII_KIT } from "@ecf/shared/test-support/kit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { walkCertification, type WalkResult } from "../../scripts/certify-lib/certification.ts";
import { type ClientWalkResult, walkProviderClient } from "../../scripts/certify-lib/provider-client.ts";
import { startLocalStack, type LocalStack } from "../../scripts/local-stack.ts";

const STEM = "BlueFireRD_adse-dgii-ecf-engine__";
const CLIENT = { rnc: "131880681", legalName: "SUPERMERCADO CLIENTE DEL PROVEEDOR SRL" };
let stack: LocalStack;
let out: string;
let provider: WalkResult;
let client: ClientWalkResult;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "ecf-certify-provider-"));
  stack = await startLocalStack({ processingMs: 50, pollDelaysMs: "100,200,400,800,1600,3200", frozen: true });
  provider = await walkCertification(stack, {
    ecfSheet: join(DGII_KIT, "testsets", `${STEM}dataset_133470616__ECF.csv`),
    approvalsSheet: join(DGII_KIT, "testsets", `${STEM}acecf_dataset_133470616__ACEECF_Generadas.csv`),
    out: join(out, "provider"),
    representative: { cedula: "00112345678", name: "MARIA PEREZ" },
    productionOrigin: "https://ecf.example.do",
    applicant: "provider",
    log: (line) => console.log(line),
  });
  client = await walkProviderClient(stack, {
    providerRnc: provider.rnc,
    providerDataTests: provider.dataTests,
    client: CLIENT,
    representative: { cedula: "00298765432", name: "JUAN GOMEZ" },
    ecfTypes: ["31", "32"],
    out,
    productionOrigin: "https://ecf.example.do",
    log: (line) => console.log(line),
  });
}, 900_000);

afterAll(async () => {
  await stack?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

it("certifies the provider on the full path", () => {
  expect(provider.run.applicant).toBe("provider");
  expect(provider.run.certified).toBe(true);
  expect(readFileSync(provider.files.postulacion, "utf8")).toContain(
    "<TipoPostulante>ProveedorServicios</TipoPostulante>",
  );
});

it("walks the provider's client through the short path to certified", () => {
  expect(client.run.applicant).toBe("provider-client");
  expect(client.run.providerRnc).toBe(provider.rnc);
  expect(client.run.certified).toBe(true);
  const state = (id: string) => client.run.steps.find((s: { id: string }) => s.id === id).state;
  for (const id of ["simulacion", "representacion-impresa", "url-produccion", "declaracion-jurada", "finalizado"])
    expect(state(id)).toBe("completed");
  for (const id of ["pruebas-datos-ecf", "url-prueba", "recepcion-ecf", "aprobacion-comercial"])
    expect(state(id)).toBe("skipped");
});

it("issues the client's simulation as the client and prints it in one PDF", () => {
  expect(client.simulation.map((s) => s.estado)).toEqual(["Aceptado", "Aceptado"]);
  const info = execFileSync("pdfinfo", [client.files.printedCopies], { encoding: "utf8" });
  expect(Number(/^Pages:\s+(\d+)/m.exec(info)?.[1])).toBe(client.simulation.length);
  expect(info).toMatch(new RegExp(`Title:\\s+Representaciones impresas ${CLIENT.rnc}`));
});

it("signs the client's documents as the client's representative, naming the provider", () => {
  const postulacion = readFileSync(client.files.postulacion, "utf8");
  expect(xmlsecVerify(postulacion, client.representativePem)).toMatchObject({ ok: true });
  expect(postulacion).toContain(`<RNCProveedor>${provider.rnc}</RNCProveedor>`);
  expect(xmlsecVerify(readFileSync(client.files.declaracion, "utf8"), client.representativePem)).toMatchObject({
    ok: true,
  });
});
