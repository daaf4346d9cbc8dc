// DGII's certification environment (certecf): a taxpayer is walked through the 14 steps of the
// portal in order, with its data sets, simulation, printed copies, and the communication tests
// in which the sandbox sends its own e-CF and approval to the receiver the taxpayer registered
// (here the sandbox's emisor-receptor simulator, a real receiver over HTTP).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestIdentity, testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { type Applicant, declaracionXml, Portal, postulacionXml, signedBy, stepOf } from "./support/certification.ts";
import { control, delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedAcecf, signedEcf, signedRfce } from "./support/documents.ts";

const ISSUER = "130862346";
const CLIENT = "131880681";
let sandbox: RunningSandbox;
let representative: TestIdentity;
let stranger: TestIdentity;
let certecf: DgiiClient;
let portal: Portal;
let token: string;
let sequence = 500;
const stateDir = mkdtempSync(join(tmpdir(), "sandbox-certification-"));

let issuer: Applicant;

beforeAll(async () => {
  [sandbox, representative, stranger] = await Promise.all([
    startSandbox({ port: 0, processingMs: 0, stateDir }),
    createTestIdentity({ rnc: "00112345678", commonName: "MARIA PEREZ" }),
    testIdentity(),
  ]);
  await delegate(sandbox.url, representative, [ISSUER, CLIENT, "131880738"]);
  certecf = new DgiiClient(sandbox.url, "certecf");
  portal = new Portal(sandbox.url);
  token = await certecf.login(representative);
  issuer = {
    rnc: ISSUER,
    razonSocial: "IT SOLUCLICK SRL",
    cedula: "00112345678",
    nombre: "MARIA PEREZ",
    tipos: ["31", "32"],
    receiver: `${sandbox.url}/testecf/emisorreceptor`,
    tipoPostulante: "ProveedorServicios",
  };
});
afterAll(async () => {
  await sandbox.close();
  rmSync(stateDir, { recursive: true, force: true });
});

/** Sends an e-CF (or, for an E32 below 250,000, its RFCE) to certecf and waits for DGII's verdict. */
async function issue(kind: "31" | "rfce" | "broken", rnc = ISSUER): Promise<number> {
  const asRnc = (doc: Record<string, any>) => void (doc.Encabezado.Emisor.RNCEmisor = rnc);
  if (kind === "rfce") {
    const rfce = await signedRfce(representative, { sequence: ++sequence });
    return (await certecf.postXml("/recepcionfc/api/recepcion/ecf", rfce.xml, rfce.fileName, token)).body.codigo;
  }
  const ecf = await signedEcf(representative, "31", { sequence: ++sequence }, asRnc);
  const xml = kind === "broken" ? ecf.xml.replace("IT SOLUCLICK SRL", "IT SOLUCLICK") : ecf.xml;
  const sent = await certecf.send(xml, ecf.fileName, token);
  return (await certecf.waitFinal(sent.body.trackId, token)).codigo;
}

async function approveAsBuyer(encf: string, rncEmisor: string): Promise<number> {
  const acecf = await signedAcecf(representative, {
    RNCEmisor: rncEmisor,
    eNCF: encf,
    FechaEmision: "01-04-2025",
    MontoTotal: "100.00",
    RNCComprador: ISSUER,
    Estado: "1",
    FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
  });
  return (await certecf.postXml("/aprobacioncomercial/api/aprobacioncomercial", acecf.xml, acecf.fileName, token))
    .status;
}

describe("a taxpayer's certification in certecf", () => {
  it("refuses a postulación not signed by the representative it names", async () => {
    const answer = await portal.apply(await signedBy(stranger, postulacionXml(issuer)));
    expect(answer.status).toBe(422);
    expect(answer.body.mensaje).toMatch(/no es el representante registrado/);
  });

  it("registers the postulación and refuses a step out of order", async () => {
    const answer = await portal.apply(await signedBy(representative, postulacionXml(issuer)));
    expect(answer.status).toBe(201);
    expect(answer.body.pasoActual).toMatchObject({ numero: 2, id: "pruebas-datos-ecf" });
    expect(
      (await control(sandbox.url, "PUT", `/certificacion/${ISSUER}/set`, { ecf: 2, rfce: 1, acecf: 1 })).status,
    ).toBe(200);

    const early = await portal.act(ISSUER, "representacion-impresa", { file: "%PDF-1.7" });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: "paso_fuera_de_orden" });
    expect(early.body.mensaje).toMatch(/el paso en curso es 2 \(Pruebas de datos e-CF\)/);
    expect((await portal.act(ISSUER, "pruebas-datos-ecf")).body.error).toBe("paso_de_dgii");
  });

  it("restarts the data set after a Rechazado, and passes it when the whole set is accepted after it", async () => {
    expect(await issue("31")).toBe(1);
    expect(await issue("broken")).toBe(2);
    const restarted = await portal.status(ISSUER);
    expect(stepOf(restarted, "pruebas-datos-ecf")).toMatchObject({ estado: "pendiente", reinicios: 1 });
    expect(stepOf(restarted, "pruebas-datos-ecf").detalle).toMatch(/se reinicia/);

    expect(await issue("31")).toBe(1);
    expect(await issue("rfce")).toBe(1);
    expect(stepOf(await portal.status(ISSUER), "pruebas-datos-ecf").estado).toBe("pendiente");
    expect(await issue("31")).toBe(1);
  });

  it("passes the approvals sheet with the buyer's ACECF of DGII's invoices, sent before anyone read the portal", async () => {
    expect(await approveAsBuyer("E310000000007", "131880738")).toBe(200);
  });

  it("passes the simulation once every declared type is accepted, then takes the printed copies up to 10 MB", async () => {
    // Sent before anyone read the portal: the approvals step was completed when its approval came, so this counts.
    expect(await issue("31")).toBe(1);
    const simulating = await portal.status(ISSUER);
    expect(stepOf(simulating, "pruebas-datos-ecf").estado).toBe("completado");
    expect(stepOf(simulating, "pruebas-datos-aprobacion-comercial").estado).toBe("completado");
    expect(simulating.body.pasoActual.id).toBe("simulacion");
    expect(await issue("rfce")).toBe(1);
    expect((await portal.status(ISSUER)).body.pasoActual.id).toBe("representacion-impresa");

    const tooBig = new Uint8Array(10 * 1024 * 1024 + 1);
    tooBig.set(new TextEncoder().encode("%PDF-"));
    expect((await portal.act(ISSUER, "representacion-impresa", { file: tooBig })).body.error).toBe(
      "archivo_muy_grande",
    );
    expect((await portal.act(ISSUER, "representacion-impresa", { file: "not a pdf" })).body.error).toBe(
      "archivo_invalido",
    );
    const uploaded = await portal.act(ISSUER, "representacion-impresa", { file: "%PDF-1.7\n%%EOF" });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.pasoActual.id).toBe("url-prueba");
  });

  it("sends its e-CF to the registered receiver, takes a signed ARECF, and exchanges approvals both ways", async () => {
    expect((await portal.act(ISSUER, "url-prueba", { urls: {} })).body.pasoActual.id).toBe("inicio-recepcion-ecf");
    const received = await portal.act(ISSUER, "inicio-recepcion-ecf");
    expect(received.status).toBe(200);
    expect(stepOf(received, "recepcion-ecf")).toMatchObject({ estado: "completado" });
    expect(stepOf(received, "recepcion-ecf").detalle).toMatch(/acuse de recibo firmado/);
    const sent = received.body.ecfEnviado;
    expect(sent).toMatchObject({ rncEmisor: "401507449" });
    const atReceiver = await control(sandbox.url, "GET", `/received?kind=receptor-ecf&encf=${sent.encf}`);
    expect(atReceiver.body).toMatchObject([{ rnc: "401507449", outcome: { Estado: "0" } }]);

    const approved = await portal.act(ISSUER, "inicio-aprobacion-comercial");
    expect(approved.status).toBe(200);
    const delivered = await control(sandbox.url, "GET", `/received?kind=receptor-acecf`);
    // DGII plays the buyer of one of the issuer's accepted e-CF: the approval names that e-CF's buyer.
    expect(delivered.body.some((entry: { rnc: string }) => entry.rnc === "131880738")).toBe(true);
    expect(approved.body.pasoActual.id).toBe("aprobacion-comercial");

    expect(await approveAsBuyer(sent.encf, "401507449")).toBe(200);
    expect((await portal.status(ISSUER)).body.pasoActual.id).toBe("url-produccion");
  });

  it("takes https production URLs and the representative's declaración, then finishes", async () => {
    const urls = {
      recepcion: "https://ecf.example.do/fe/recepcion/api/ecf",
      aprobacionComercial: "https://ecf.example.do/fe/aprobacioncomercial/api/ecf",
      autenticacion: "https://ecf.example.do/fe/autenticacion",
    };
    expect((await portal.act(ISSUER, "url-produccion", { urls: { ...urls, recepcion: "http://x.do/" } })).status).toBe(
      400,
    );
    expect((await portal.act(ISSUER, "url-produccion", { urls })).body.pasoActual.id).toBe("declaracion-jurada");
    const unsigned = await portal.act(ISSUER, "declaracion-jurada", {
      file: await signedBy(stranger, declaracionXml(issuer)),
    });
    expect(unsigned.body.error).toBe("firma_invalida");
    const done = await portal.act(ISSUER, "declaracion-jurada", {
      file: await signedBy(representative, declaracionXml(issuer)),
    });
    expect(done.body).toMatchObject({ finalizado: true, pasoActual: null });
    expect(done.body.pasos.every((s: { estado: string }) => s.estado === "completado")).toBe(true);
  });

  it("remembers the certification across a restart", async () => {
    await sandbox.close();
    // A new port: the old one's keep-alive sockets are closed under the client's pool.
    sandbox = await startSandbox({ port: 0, processingMs: 0, stateDir });
    portal = new Portal(sandbox.url);
    certecf = new DgiiClient(sandbox.url, "certecf");
    expect((await portal.status(ISSUER)).body).toMatchObject({ finalizado: true, rnc: ISSUER });
  });
});

describe("a certified provider's client", () => {
  const client = (): Applicant => ({
    ...issuer,
    rnc: CLIENT,
    razonSocial: "CLIENTE DEL PROVEEDOR SRL",
    tipos: ["31"],
    tipoPostulante: "Contribuyente",
    rncProveedor: ISSUER,
  });

  it("is refused when its provider is not certified", async () => {
    const answer = await portal.apply(
      await signedBy(representative, postulacionXml({ ...client(), rncProveedor: "131880738" })),
    );
    expect(answer.body.error).toBe("proveedor_no_certificado");
  });

  it("takes the short path: simulation, printed copies, production URLs, declaración, status", async () => {
    const applied = await portal.apply(await signedBy(representative, postulacionXml(client())));
    expect(applied.status).toBe(201);
    expect(stepOf(applied, "pruebas-datos-ecf").estado).toBe("no-aplica");
    expect(stepOf(applied, "recepcion-ecf").estado).toBe("no-aplica");
    expect(applied.body.pasoActual.id).toBe("simulacion");

    expect(await issue("31", CLIENT)).toBe(1);
    expect((await portal.status(CLIENT)).body.pasoActual.id).toBe("representacion-impresa");
    await portal.act(CLIENT, "representacion-impresa", { file: "%PDF-1.7\n%%EOF" });
    const host = "https://cliente.example.do";
    const urls = {
      recepcion: `${host}/fe/recepcion/api/ecf`,
      aprobacionComercial: `${host}/fe/aprobacioncomercial/api/ecf`,
      autenticacion: `${host}/fe/autenticacion`,
    };
    expect((await portal.act(CLIENT, "url-produccion", { urls })).body.pasoActual.id).toBe("declaracion-jurada");
    const done = await portal.act(CLIENT, "declaracion-jurada", {
      file: await signedBy(representative, declaracionXml(client())),
    });
    expect(done.body.finalizado).toBe(true);
  });
});
