// Authorized signers per RNC: an e-CF, RFCE, ACECF or ANECF signed by anyone but a delegate the RNC
// registered (PUT /__sandbox/signers) is refused as DGII refuses it, and consultatrackids answers
// only a delegate's token. An RNC that registered no one takes no one's (DGII's default); only the
// lenientSigners option, off unless named, waives that.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, DgiiClient, delegate as registerSigner } from "./support/dgii-client.ts";
import { signedAcecf, signedAnecf, signedEcf, signedRfce } from "./support/documents.ts";

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

const sendRfce = (doc: { xml: string; fileName: string }, token: string, on = client) =>
  on.postXml("/recepcionfc/api/recepcion/ecf", doc.xml, doc.fileName, token);

describe("authorized signers", () => {
  it("an RNC that registers no one takes no one's e-CF, RFCE or trackids query (as DGII)", async () => {
    const ecf = await signedEcf(delegate, "31", { sequence: next() });
    const final = await client.waitFinal(
      (await client.send(ecf.xml, ecf.fileName, delegateToken)).body.trackId,
      delegateToken,
    );
    expect(final).toMatchObject({ codigo: 2, mensajes: [{ valor: expect.stringMatching(NOT_A_DELEGATE) }] });
    const rfce = await sendRfce(await signedRfce(delegate, { sequence: next() }), delegateToken);
    expect(rfce.body).toMatchObject({ codigo: 2, mensajes: [{ valor: expect.stringMatching(NOT_A_DELEGATE) }] });
    const path = "/consultatrackids/api/trackids/consulta?rncemisor=130862346&encf=E310000000001";
    expect((await client.get(path, delegateToken)).status).toBe(400);
  });

  it("the lenientSigners option (not DGII) takes anyone's signature for an RNC that registers no one", async () => {
    const lenient = await startSandbox({ port: 0, processingMs: 0, lenientSigners: true });
    try {
      const other = new DgiiClient(lenient.url);
      const token = await other.login(stranger);
      const ecf = await signedEcf(stranger, "31", { sequence: next() });
      expect((await other.waitFinal((await other.send(ecf.xml, ecf.fileName, token)).body.trackId, token)).codigo).toBe(
        1,
      );
    } finally {
      await lenient.close();
    }
  });

  it("the signers start option registers an RNC's delegates", async () => {
    const started = await startSandbox({
      port: 0,
      processingMs: 0,
      signers: { "130862346": [delegate.certificatePem] },
    });
    try {
      const other = new DgiiClient(started.url);
      const rfce = (identity: TestIdentity) => signedRfce(identity, { sequence: next() });
      const token = await other.login(delegate);
      expect((await sendRfce(await rfce(delegate), token, other)).body.codigo).toBe(1);
      expect((await sendRfce(await rfce(stranger), await other.login(stranger), other)).body.codigo).toBe(2);
    } finally {
      await started.close();
    }
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

    it("rejects an RFCE another certificate signed (the e-NCF stays usable), accepts the delegate's", async () => {
      const forged = await signedRfce(stranger, { sequence: next() });
      const refused = await sendRfce(forged, strangerToken);
      expect(refused.body).toMatchObject({
        codigo: 2,
        secuenciaUtilizada: false,
        mensajes: [{ valor: expect.stringMatching(NOT_A_DELEGATE) }],
      });
      const genuine = await signedRfce(delegate, { sequence: Number(forged.encf.slice(3)) });
      expect(genuine.encf).toBe(forged.encf);
      expect((await sendRfce(genuine, delegateToken)).body).toMatchObject({ codigo: 1, estado: "Aceptado" });
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
      // An invoice to that buyer, issued by another RNC (the stranger is its delegate), then its approval.
      await registerSigner(sandbox.url, stranger, ["131880738"]);
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
