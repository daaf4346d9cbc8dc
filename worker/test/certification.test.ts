// The issuer's DGII certification run: started by the owner, kept in D1, its postulación and
// declaración signed with the representative's certificate (xmlsec1 judges them), its steps taken
// in order only, and read from the DGII sandbox's portal after the person's upload there.
import { env } from "cloudflare:workers";
import { fromBase64, parseXmlTree } from "@ecf/shared";
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";
import { describe, expect, inject, it } from "vitest";
import { zipStream } from "../src/archive/zip-stream.ts";
import { authed, companyWithToken } from "./support/accounts.ts";
import { browse, consoleUser } from "./support/console.ts";
import { call } from "./support/http.ts";
import { sandboxUrl } from "./support/issuing.ts";

const fixtures = inject("certificates");
const REPRESENTATIVE = { cedula: "00112345678", name: "MARIA PEREZ" };
const START = { representative: REPRESENTATIVE, ecfTypes: ["31", "32"], applicant: "provider" };

async function upload(token: string, p12: string) {
  const form = new FormData();
  form.set("file", new File([new Uint8Array(fromBase64(p12)!)], "firma.p12", { type: "application/x-pkcs12" }));
  form.set("password", fixtures.password);
  const res = await call("/company/certificate", { method: "PUT", headers: authed(token), body: form });
  expect(res.status).toBe(200);
}

const json = (token: string, method: string, path: string, body?: unknown) =>
  call(path, {
    method,
    headers: authed(token, body === undefined ? {} : { "Content-Type": "application/json" }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** xmlsec1's verdict (through the Node-side verifier) on each signed XML, trusting the demo CA. */
async function xmlsec1(files: Record<string, string>) {
  const entries = Object.entries(files).map(([name, xml]) => ({
    name,
    modified: new Date(),
    body: new TextEncoder().encode(xml),
  }));
  const zip = await new Response(zipStream(entries)).arrayBuffer();
  const res = await fetch(`${inject("zipVerifierUrl")}/verify`, { method: "POST", body: zip });
  return (await res.json()) as { verified: number; failed: unknown[] };
}

const text = (xml: string, ...path: string[]) =>
  path.reduce<any>((node, name) => node?.children.find((c: { name: string }) => c.name === name), parseXmlTree(xml))
    ?.text;

describe("/company/certification", () => {
  it("is started by the issuer, kept in D1, and shows every step with the person's acts", async () => {
    const { company, token } = await companyWithToken({ dgiiServer: "certecf" });
    expect((await json(token, "GET", "/company/certification")).status).toBe(404);
    const wrong = await json(token, "PUT", "/company/certification", { ...START, applicant: "provider-client" });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/providerRnc");

    const started = await json(token, "PUT", "/company/certification", {
      ...START,
      publicOrigin: "https://ecf.example.do",
    });
    expect(started.status).toBe(200);
    const run = (await started.json()) as any;
    expect(run.steps).toHaveLength(14);
    expect(run.currentStep).toMatchObject({ id: "registro", number: 1 });
    expect(run.receiverUrls.recepcion).toBe(`https://ecf.example.do/${company.rnc}/fe/recepcion/api/ecf`);
    expect(run.steps.find((s: any) => s.id === "declaracion-jurada").act.es).toMatch(/representante registrado/);

    const row = await env.DB.prepare("SELECT state FROM certification_runs WHERE company_id = ?1")
      .bind(company.id)
      .first<{ state: string }>();
    expect(JSON.parse(row!.state).representative).toEqual(REPRESENTATIVE);
  });

  it("refuses to sign with a certificate whose holder is not the representative", async () => {
    const { token } = await companyWithToken({ dgiiServer: "certecf" });
    await json(token, "PUT", "/company/certification", START);
    const missing = await json(token, "GET", "/company/certification/postulacion");
    expect(missing.status).toBe(422);
    await upload(token, fixtures.forgeP12);
    const res = await json(token, "GET", "/company/certification/postulacion");
    expect(res.status).toBe(422);
    const problem = (await res.json()) as { errors: { code: string; messageEs: string }[] };
    expect(problem.errors[0]).toMatchObject({ code: "signer_not_representative" });
    expect(problem.errors[0]!.messageEs).toMatch(/no del representante registrado/);
  });

  it("signs the postulación and the declaración as the representative (xmlsec1 verifies both)", async () => {
    const { company, token } = await companyWithToken({ dgiiServer: "certecf" });
    await json(token, "PUT", "/company/certification", START);
    await upload(token, fixtures.representativeP12);
    const postulacion = await (await json(token, "GET", "/company/certification/postulacion")).text();
    const declaracion = await (await json(token, "GET", "/company/certification/declaracion")).text();
    expect(text(postulacion, "Representante", "Cedula")).toBe(REPRESENTATIVE.cedula);
    expect(text(postulacion, "RNC")).toBe(company.rnc);
    expect(text(postulacion, "TipoPostulante")).toBe("ProveedorServicios");
    expect(text(declaracion, "Representante", "Nombre")).toBe(REPRESENTATIVE.name);
    expect(await xmlsec1({ "postulacion.xml": postulacion, "declaracion.xml": declaracion })).toMatchObject({
      verified: 2,
      failed: [],
    });
  });

  it("takes the steps in order only, and reads the sandbox portal's verdicts", async () => {
    const { company, token } = await companyWithToken({ dgiiServer: "certecf" });
    await json(token, "PUT", "/company/certification", START);
    await upload(token, fixtures.representativeP12);
    const early = await json(token, "POST", "/company/certification/steps/declaracion-jurada", {});
    expect(early.status).toBe(409);
    const problem = (await early.json()) as { errors: { code: string; messageEs: string }[] };
    expect(problem.errors[0]).toMatchObject({ code: "step_out_of_order" });
    expect(problem.errors[0]!.messageEs).toMatch(/el paso en curso es 1/);

    // The person uploads the signed postulación in (the sandbox's) DGII portal.
    await registerSigner(sandboxUrl(), company.rnc, [fixtures.representativeCertificatePem]);
    const form = new FormData();
    const signed = await (await json(token, "GET", "/company/certification/postulacion")).text();
    form.append("xml", new Blob([signed], { type: "text/xml" }), "postulacion.xml");
    const uploaded = await fetch(`${sandboxUrl()}/portal/certificacion/postulacion`, { method: "POST", body: form });
    expect(uploaded.status).toBe(201);

    const synced = (await (await json(token, "POST", "/company/certification/sync")).json()) as any;
    expect(synced.steps[0]).toMatchObject({ id: "registro", state: "completed", detail: "Postulación recibida" });
    expect(synced.currentStep.id).toBe("pruebas-datos-ecf");
    // Once registered, the run is not started again over itself.
    expect((await json(token, "PUT", "/company/certification", START)).status).toBe(409);
  });

  it("takes a certified provider's client on the short path, its postulación naming the provider", async () => {
    const { token } = await companyWithToken({ dgiiServer: "certecf" });
    const started = await json(token, "PUT", "/company/certification", {
      ...START,
      applicant: "provider-client",
      providerRnc: "131880681",
    });
    const run = (await started.json()) as { steps: { id: string; state: string }[] };
    expect(run.steps.filter((s) => s.state === "pending").map((s) => s.id)).toEqual([
      "registro",
      "simulacion",
      "representacion-impresa",
      "url-produccion",
      "declaracion-jurada",
      "verificacion-estatus",
      "finalizado",
    ]);
    await upload(token, fixtures.representativeP12);
    const postulacion = await (await json(token, "GET", "/company/certification/postulacion")).text();
    expect(text(postulacion, "RNCProveedor")).toBe("131880681");
    expect(text(postulacion, "TipoPostulante")).toBe("Contribuyente");
  });

  it("is the owner's alone in the console", async () => {
    const { company, token } = await companyWithToken({ dgiiServer: "certecf" });
    await json(token, "PUT", "/company/certification", START);
    const accountant = await consoleUser(company.id, "accountant");
    expect((await browse(accountant, "/company/certification")).status).toBe(403);
    const owner = await consoleUser(company.id, "owner");
    expect((await browse(owner, "/company/certification")).status).toBe(200);
  });
});
