// DGII's emisor-receptor simulator, receiving side: the platform sends it e-CF and approvals.
import { parseArecf, signXml, verifyXml } from "@ecf/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedAcecf, signedEcf } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let receptor: DgiiClient;
let sequence = 300;
const next = () => ++sequence;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  receptor = new DgiiClient(sandbox.url, "testecf/emisorreceptor");
});
afterAll(() => sandbox.close());

const sendEcf = (xml: string, fileName: string, token?: string) =>
  receptor.postXml("/fe/recepcion/api/ecf", xml, fileName, token);

describe("/fe/recepcion/api/ecf", () => {
  it("acknowledges a valid e-CF with an ARECF signed by the sandbox, and a second copy as duplicate", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    const first = await sendEcf(ecf.xml, ecf.fileName);
    expect(first.status).toBe(200);
    const verified = await verifyXml(first.body);
    expect(verified.ok && verified.certificate.holderId).toBe("401507449");
    expect(parseArecf(first.body)).toMatchObject({
      RNCEmisor: ecf.rnc,
      RNCComprador: "131880738",
      eNCF: ecf.encf,
      Estado: "0",
    });

    const second = await sendEcf(ecf.xml, ecf.fileName);
    expect(parseArecf(second.body)).toMatchObject({ Estado: "1", CodigoMotivoNoRecibido: "3" });
  });

  it.each([
    [
      "a broken signature (2)",
      async () => {
        const e = await signedEcf(identity, "31", { sequence: next() });
        return e.xml.replace("IT SOLUCLICK SRL", "IT SOLUCLICK");
      },
      "2",
    ],
    [
      "an XSD violation (1)",
      async () =>
        (
          await signedEcf(
            identity,
            "31",
            { sequence: next() },
            (_, at) => void (at("Encabezado", "IdDoc").TipoIngresos = "99"),
          )
        ).xml,
      "1",
    ],
  ])("answers not received for %s", async (_, make, motivo) => {
    const { status, body } = await sendEcf(await make(), "130862346E310000000001.xml");
    expect(status).toBe(200);
    expect(parseArecf(body)).toMatchObject({ Estado: "1", CodigoMotivoNoRecibido: motivo });
  });

  it("refuses types that are never sent to another taxpayer", async () => {
    const ecf = await signedEcf(identity, "32", { sequence: next() });
    expect((await sendEcf(ecf.xml, ecf.fileName)).status).toBe(400);
  });

  it("takes its own token, not DGII's", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    const dgiiToken = await new DgiiClient(sandbox.url).login(identity);
    expect((await sendEcf(ecf.xml, ecf.fileName, dgiiToken)).status).toBe(401);

    const seed = await (await fetch(receptor.url("/fe/autenticacion/api/semilla"))).text();
    const login = await receptor.postXml(
      "/fe/autenticacion/api/validacioncertificado",
      await signXml(seed, identity.privateKey, identity.certificateDer),
      "semilla.xml",
    );
    expect(login.status).toBe(200);
    expect((await sendEcf(ecf.xml, ecf.fileName, login.body.token)).status).toBe(200);
  });

  it("exists in testecf only", async () => {
    const response = await fetch(`${sandbox.url}/ecf/emisorreceptor/fe/recepcion/api/ecf`, { method: "POST" });
    expect(response.status).toBe(404);
  });
});

describe("/fe/aprobacioncomercial/api/ecf", () => {
  const approval = (encf: string) =>
    signedAcecf(identity, {
      RNCEmisor: "131880738",
      eNCF: encf,
      FechaEmision: "01-04-2025",
      MontoTotal: "100.00",
      RNCComprador: "130862346",
      Estado: "1",
      FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
    });

  it.each([
    ["an approval of an E31", "E310000000009", 200],
    ["an approval of an E32 (never needed)", "E320000000009", 400],
  ])("answers %s with %i", async (_, encf, status) => {
    const doc = await approval(encf);
    expect((await receptor.postXml("/fe/aprobacioncomercial/api/ecf", doc.xml, doc.fileName)).status).toBe(status);
  });
});
