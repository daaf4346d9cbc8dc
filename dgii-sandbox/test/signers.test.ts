// Authorized signers per RNC: once an RNC registers its delegates (PUT /__sandbox/signers), an
// e-CF, ACECF or ANECF signed by anyone else is refused as DGII refuses it, and consultatrackids
// answers only a delegate's token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, DgiiClient } from "./support/dgii-client.ts";
import { signedAcecf, signedAnecf, signedEcf } from "./support/documents.ts";

let sandbox: RunningSandbox;
let delegate: TestIdentity;
let stranger: TestIdentity;
let client: DgiiClient;
let delegateToken: string;
let strangerToken: string;
let sequence = 9100;
const next = () => ++sequence;
const NOT_A_DELEGATE = /Firmante del comprobante fiscal electrónico no corresponde a un delegado autorizado/;

beforeAll(async () => {
  [sandbox, delegate, stranger] = await Promise.all([
    startSandbox({ port: 0, processingMs: 50 }),
    testIdentity(),
    // Same subject, another key: a certificate the RNC never delegated.
    createTestIdentity({ rnc: "131880738", commonName: "EMPRESA DE PRUEBA SRL" }),
  ]);
  client = new DgiiClient(sandbox.url);
  [delegateToken, strangerToken] = [await client.login(delegate), await client.login(stranger)];
});
afterAll(() => sandbox.close());

describe("authorized signers", () => {
  it("an RNC that registers no one is not checked (the lenient default)", async () => {
    const ecf = await signedEcf(stranger, "31", { sequence: next() });
    const final = await client.waitFinal(
      (await client.send(ecf.xml, ecf.fileName, strangerToken)).body.trackId,
      strangerToken,
    );
    expect(final.codigo).toBe(1);
  });

  it("refuses a malformed registration", async () => {
    expect((await control(sandbox.url, "PUT", "/signers", { rnc: "12", certificates: [] })).status).toBe(400);
    expect(
      (await control(sandbox.url, "PUT", "/signers", { rnc: "130862346", certificates: ["not a pem"] })).status,
    ).toBe(400);
  });

  describe("once the RNC registers its delegate", () => {
    beforeAll(async () => {
      const res = await control(sandbox.url, "PUT", "/signers", {
        rnc: "130862346",
        certificates: [delegate.certificatePem],
      });
      expect(res.status).toBe(200);
      expect((await control(sandbox.url, "GET", "/signers")).body).toEqual({
        "130862346": [expect.stringMatching(/^[0-9a-f]{64}$/)],
      });
    });
    afterAll(async () => {
      await control(sandbox.url, "PUT", "/signers", { rnc: "130862346", certificates: [] });
    });

    it("rejects an e-CF another certificate signed (the e-NCF stays usable), accepts the delegate's", async () => {
      const forged = await signedEcf(stranger, "31", { sequence: next() });
      expect(forged.rnc).toBe("130862346");
      const refused = await client.waitFinal(
        (await client.send(forged.xml, forged.fileName, strangerToken)).body.trackId,
        strangerToken,
      );
      expect(refused).toMatchObject({
        codigo: 2,
        secuenciaUtilizada: false,
        mensajes: [{ valor: expect.stringMatching(NOT_A_DELEGATE) }],
      });
      const genuine = await signedEcf(delegate, "31", { sequence: next() });
      expect(
        (
          await client.waitFinal(
            (
              await client.send(genuine.xml, genuine.fileName, delegateToken)
            ).body.trackId,
            delegateToken,
          )
        ).codigo,
      ).toBe(1);
    });

    it("consultatrackids answers the delegate's token and refuses another's", async () => {
      const path = "/consultatrackids/api/trackids/consulta?rncemisor=130862346&encf=E310000000001";
      expect((await client.get(path, delegateToken)).status).toBe(200);
      const refused = await client.get(path, strangerToken);
      expect(refused.status).toBe(400);
      expect(refused.body.mensaje).toMatch(/no está autorizado a consultar el trackid/);
    });

    it("refuses an ANECF another certificate signed", async () => {
      const input = {
        RncEmisor: "130862346",
        FechaHoraAnulacioneNCF: "02-04-2025 09:00:00",
        DetalleAnulacion: [
          {
            TipoeCF: "31" as const,
            TablaRangoSecuenciasAnuladaseNCF: [
              { SecuenciaeNCFDesde: "E310000009900", SecuenciaeNCFHasta: "E310000009909" },
            ],
          },
        ],
      };
      const post = (doc: { xml: string; fileName: string }, token: string) =>
        client.postXml("/anulacionrangos/api/operaciones/anularrango", doc.xml, doc.fileName, token);
      const refused = await post(await signedAnecf(stranger, input), strangerToken);
      expect(refused.status).toBe(400);
      expect(refused.body.mensajes[0]).toMatch(NOT_A_DELEGATE);
      expect((await post(await signedAnecf(delegate, input), delegateToken)).status).toBe(200);
    });

    it("refuses an ACECF of buyer 130862346 another certificate signed", async () => {
      // An invoice to that buyer, issued by another RNC (not checked), then its approval.
      const ecf = await signedEcf(stranger, "31", { sequence: next() }, (_doc, at) => {
        at("Encabezado", "Emisor").RNCEmisor = "131880738";
        at("Encabezado", "Comprador").RNCComprador = "130862346";
      });
      await client.waitFinal((await client.send(ecf.xml, ecf.fileName, strangerToken)).body.trackId, strangerToken);
      const approval = (identity: TestIdentity) =>
        signedAcecf(identity, {
          RNCEmisor: ecf.rnc,
          eNCF: ecf.encf,
          FechaEmision: "01-04-2025",
          MontoTotal: "4013.18",
          RNCComprador: "130862346",
          Estado: "1",
          FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
        });
      const post = (doc: { xml: string; fileName: string }, token: string) =>
        client.postXml("/aprobacioncomercial/api/aprobacioncomercial", doc.xml, doc.fileName, token);
      const refused = await post(await approval(stranger), strangerToken);
      expect(refused.status).toBe(400);
      expect(refused.body.mensaje[0]).toMatch(NOT_A_DELEGATE);
    });
  });
});
