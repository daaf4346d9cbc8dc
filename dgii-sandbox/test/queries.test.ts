// RFCE, consulta trackIds, consulta estado, commercial approval copies and range voiding.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedAcecf, signedAnecf, signedEcf, signedRfce } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let client: DgiiClient;
let token: string;
let sequence = 500;
const next = () => ++sequence;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0, processingMs: 50 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  client = new DgiiClient(sandbox.url);
  token = await client.login(identity);
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await control(sandbox.url, "DELETE", "/received");
});

const sendRfce = (xml: string, fileName: string) =>
  client.postXml("/recepcionfc/api/recepcion/ecf", xml, fileName, token);

describe("recepcionfc (RFCE)", () => {
  it("answers Aceptado synchronously", async () => {
    const rfce = await signedRfce(identity, { sequence: next() });
    const { status, body } = await sendRfce(rfce.xml, rfce.fileName);
    expect(status).toBe(200);
    expect(body).toEqual({ codigo: 1, estado: "Aceptado", mensajes: [], encf: rfce.encf, secuenciaUtilizada: true });
  });

  const rejections: [string, () => Promise<{ xml: string; fileName: string }>, number, boolean][] = [
    [
      "a broken signature",
      async () => {
        const r = await signedRfce(identity, { sequence: next() });
        return { ...r, xml: r.xml.replace("IT SOLUCLICK SRL", "IT SOLUCLICK") };
      },
      2,
      false,
    ],
    [
      "a second RFCE for the same e-NCF",
      async () => {
        const r = await signedRfce(identity, { sequence: next() });
        expect((await sendRfce(r.xml, r.fileName)).body.codigo).toBe(1);
        return r;
      },
      645,
      true,
    ],
  ];
  it.each(rejections)("rejects %s", async (_, make, code, secuenciaUtilizada) => {
    const { xml, fileName } = await make();
    const { status, body } = await sendRfce(xml, fileName);
    expect(status).toBe(200);
    expect(body).toMatchObject({ codigo: 2, estado: "Rechazado", secuenciaUtilizada });
    expect(body.mensajes.map((m: { codigo: number }) => m.codigo)).toEqual([code]);
  });

  it.each([
    [
      "a wrong file name",
      async () => ({ ...(await signedRfce(identity, { sequence: next() })), fileName: "resumen.xml" }),
    ],
    ["a full e-CF", () => signedEcf(identity, "31", { sequence: next() })],
  ])("refuses %s with HTTP 400", async (_, make) => {
    const { xml, fileName } = await make();
    const { status, body } = await sendRfce(xml, fileName);
    expect(status).toBe(400);
    expect(body.codigo).toBe(2);
  });
});

describe("consultatrackids", () => {
  const path = (rnc: string, encf: string) => `/consultatrackids/api/trackids/consulta?RncEmisor=${rnc}&Encf=${encf}`;

  it("lists every track id of one RNC + e-NCF, oldest first, with their states", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    const first = await client.send(ecf.xml, ecf.fileName, token);
    await client.waitFinal(first.body.trackId, token);
    const second = await client.send(ecf.xml, ecf.fileName, token);

    const during = await client.get(path(ecf.rnc, ecf.encf), token);
    expect(during.body).toEqual([
      { trackId: first.body.trackId, estado: "Aceptado", fechaRecepcion: expect.any(String) },
      { trackId: second.body.trackId, estado: "En Proceso", fechaRecepcion: expect.any(String) },
    ]);
    await client.waitFinal(second.body.trackId, token);
    expect(
      (await client.get(path(ecf.rnc, ecf.encf.toLowerCase()), token)).body.map((t: { estado: string }) => t.estado),
    ).toEqual(["Aceptado", "Rechazado"]);
  });

  it("answers an empty list for an e-NCF never received", async () => {
    expect((await client.get(path("130862346", "E310000999999"), token)).body).toEqual([]);
  });

  it.each([
    ["", "E310000000001", /RNC Emisor es requerido/],
    ["1308", "E310000000001", /longitud del RNC/],
    ["130862346", "", /ENCF es requerido/],
    ["130862346", "E3100", /longitud del ENCF/],
    ["130862346", "X310000000001", /ENCF es inválido/],
  ])("validates RncEmisor=%j Encf=%j", async (rnc, encf, message) => {
    const { status, body } = await client.get(path(rnc, encf), token);
    expect(status).toBe(400);
    expect(body.mensaje).toMatch(message);
  });
});

describe("consultaestado", () => {
  const path = (params: Record<string, string>) =>
    `/consultaestado/api/consultas/estado?${new URLSearchParams(params)}`;

  it("finds an accepted e-CF and narrows by RncComprador and CodigoSeguridad", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    await client.waitFinal((await client.send(ecf.xml, ecf.fileName, token)).body.trackId, token);
    const base = { RncEmisor: ecf.rnc, NcfElectronico: ecf.encf };

    const found = await client.get(
      path({ ...base, RncComprador: "131880738", CodigoSeguridad: ecf.securityCode }),
      token,
    );
    expect(found.body).toEqual({
      codigo: 1,
      estado: "Aceptado",
      rncEmisor: ecf.rnc,
      ncfElectronico: ecf.encf,
      montoTotal: 4013.18,
      totalITBIS: 612.18,
      fechaEmision: "01-04-2025",
      fechaFirma: "01-04-2025 10:15:00",
      rncComprador: "131880738",
      codigoSeguridad: ecf.securityCode,
      idExtranjero: null,
    });
    const wrongs: Record<string, string>[] = [{ CodigoSeguridad: "ZZZZZZ" }, { RncComprador: "101010101" }];
    for (const wrong of wrongs) {
      expect((await client.get(path({ ...base, ...wrong }), token)).body).toMatchObject({
        codigo: 0,
        estado: "No encontrado",
      });
    }
  });

  it("finds an RFCE by its CodigoSeguridadeCF", async () => {
    const rfce = await signedRfce(identity, { sequence: next() });
    await sendRfce(rfce.xml, rfce.fileName);
    const { body } = await client.get(
      path({ RncEmisor: rfce.rnc, NcfElectronico: rfce.encf, CodigoSeguridad: rfce.securityCode }),
      token,
    );
    expect(body).toMatchObject({
      codigo: 1,
      estado: "Aceptado",
      ncfElectronico: rfce.encf,
      codigoSeguridad: rfce.securityCode,
    });
  });

  it("requires RncEmisor and NcfElectronico", async () => {
    expect((await client.get(path({ RncEmisor: "130862346" }), token)).status).toBe(400);
  });
});

describe("aprobacioncomercial (ACECF)", () => {
  const approval = (encf: string, overrides: object = {}) =>
    signedAcecf(identity, {
      RNCEmisor: "130862346",
      eNCF: encf,
      FechaEmision: "01-04-2025",
      MontoTotal: "4013.18",
      RNCComprador: "131880738",
      Estado: "1",
      FechaHoraAprobacionComercial: "02-04-2025 09:00:00",
      ...overrides,
    });
  const post = (doc: { xml: string; fileName: string }) =>
    client.postXml("/aprobacioncomercial/api/aprobacioncomercial", doc.xml, doc.fileName, token);

  it("accepts the approval of an accepted e-CF", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    await client.waitFinal((await client.send(ecf.xml, ecf.fileName, token)).body.trackId, token);
    const { status, body } = await post(await approval(ecf.encf));
    expect(status).toBe(200);
    expect(body).toEqual({ mensaje: [expect.any(String)], estado: "Aprobación comercial aprobada", codigo: "1" });
  });

  it.each([
    ["an e-CF DGII never received", () => approval("E310000888888"), /Factura no encontrada/],
    ["a type that needs no approval", () => approval("E320000000001"), /no es requerida/],
    [
      "a broken signature",
      async () => {
        const a = await approval("E310000000001");
        return { ...a, xml: a.xml.replace("4013.18", "4013.19") };
      },
      /firma del XML no es válida/,
    ],
  ])("rejects %s", async (_, make, message) => {
    const { status, body } = await post(await make());
    expect(status).toBe(400);
    expect(body).toMatchObject({ estado: "Aprobación comercial rechazada", codigo: "2" });
    expect(body.mensaje[0]).toMatch(message);
  });
});

describe("anulacionrangos (ANECF)", () => {
  const voiding = (desde: string, hasta: string, edit?: (xml: string) => string) =>
    signedAnecf(
      identity,
      {
        RncEmisor: "130862346",
        FechaHoraAnulacioneNCF: "02-04-2025 09:00:00",
        DetalleAnulacion: [
          {
            TipoeCF: "31",
            TablaRangoSecuenciasAnuladaseNCF: [{ SecuenciaeNCFDesde: desde, SecuenciaeNCFHasta: hasta }],
          },
        ],
      },
      edit,
    );
  const post = (doc: { xml: string; fileName: string }) =>
    client.postXml("/anulacionrangos/api/operaciones/anularrango", doc.xml, doc.fileName, token);

  it("voids an unused range, after which its numbers are rejected", async () => {
    const { status, body } = await post(await voiding("E310000007000", "E310000007009"));
    expect(status).toBe(200);
    expect(body).toMatchObject({ rnc: "130862346", codigo: "1" });
    const ecf = await signedEcf(identity, "31", { sequence: 7005 });
    const final = await client.waitFinal((await client.send(ecf.xml, ecf.fileName, token)).body.trackId, token);
    expect(final).toMatchObject({ codigo: 2, mensajes: [{ codigo: 4, valor: expect.stringContaining("anulado") }] });
  });

  it("refuses to void a range holding a used number", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: 7105 });
    await client.waitFinal((await client.send(ecf.xml, ecf.fileName, token)).body.trackId, token);
    const { body } = await post(await voiding("E310000007100", "E310000007110"));
    expect(body.codigo).toBe("3");
    expect(body.mensajes.join(" ")).toContain(ecf.encf);
  });

  it("refuses Desde greater than Hasta", async () => {
    // The platform's builder refuses such a range, so the XML is edited before signing.
    const swap = (xml: string) =>
      xml.replace("<SecuenciaeNCFDesde>E310000007200<", "<SecuenciaeNCFDesde>E310000007300<");
    const { status, body } = await post(await voiding("E310000007200", "E310000007250", swap));
    expect(status).toBe(400);
    expect(body.mensajes[0]).toMatch(/mayor/);
  });
});

describe("consultarfce (fc host)", () => {
  it.each([
    ["RNC_Emisor", "ENCF", "Cod_Seguridad_eCF"],
    ["RncEmisor", "ENCF", "CodigoSeguridad"],
  ])("finds an accepted RFCE by %s, %s, %s", async (rncName, encfName, codeName) => {
    const rfce = await signedRfce(identity, { sequence: next() });
    await sendRfce(rfce.xml, rfce.fileName);
    const query = (code: string) =>
      `/consultarfce/api/Consultas/Consulta?${rncName}=${rfce.rnc}&${encfName}=${rfce.encf}&${codeName}=${encodeURIComponent(code)}`;
    expect((await client.get(query(rfce.securityCode), token)).body).toEqual({
      rnc: rfce.rnc,
      encf: rfce.encf,
      secuenciaUtilizada: true,
      codigo: "1",
      estado: "Aceptado",
      mensajes: [],
    });
    expect((await client.get(query("XXXXXX"), token)).body).toMatchObject({ codigo: "0", estado: "No encontrado" });
  });
});

describe("consultadirectorio", () => {
  const entry = {
    nombre: "EMPRESA RECEPTORA SRL",
    rnc: "131880738",
    urlRecepcion: "http://127.0.0.1:8787/r1",
    urlAceptacion: "http://127.0.0.1:8787/r1",
    urlOpcional: null,
  };

  it("answers the directory a test set, whole or by RNC", async () => {
    expect(
      (await control(sandbox.url, "PUT", "/directory", [entry, { ...entry, rnc: "101010101", nombre: "OTRA" }])).status,
    ).toBe(200);
    expect(
      (await client.get("/consultadirectorio/api/consultas/listado", token)).body.map((e: { rnc: string }) => e.rnc),
    ).toEqual(["131880738", "101010101"]);
    expect(
      (await client.get("/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=131880738", token)).body,
    ).toEqual([entry]);
    expect(
      (await client.get("/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=999999999", token)).body,
    ).toEqual([]);
  });

  it("refuses a malformed directory", async () => {
    const { status, body } = await control(sandbox.url, "PUT", "/directory", [{ nombre: "X" }]);
    expect(status).toBe(400);
    expect(body.error).toMatch(/rnc/);
  });
});
