import type { TipoeCF } from "@ecf/shared";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedEcf, signedRfce, type SignedDocument } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let client: DgiiClient;
let token: string;
let sequence = 100;
const next = () => ++sequence;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0, processingMs: 300 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  client = new DgiiClient(sandbox.url);
  token = await client.login(identity);
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await control(sandbox.url, "DELETE", "/received");
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("accepted e-CF", () => {
  const tipos: [TipoeCF, object][] = [
    ["31", {}],
    ["32", { highValue: true }],
    ["33", {}],
    ["34", {}],
    ["34", { codigoModificacion: "2" }],
    ["41", {}],
    ["43", {}],
    ["44", {}],
    ["45", {}],
    ["46", {}],
    ["47", {}],
  ];
  it.each(tipos)("E%s %j: track id, En Proceso, then Aceptado", async (tipo, options) => {
    const ecf = await signedEcf(identity, tipo, { ...options, sequence: next() });
    const sent = await client.send(ecf.xml, ecf.fileName, token);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ trackId: expect.stringMatching(UUID), error: null, mensaje: null });

    const early = await client.result(sent.body.trackId, token);
    expect(early.body).toMatchObject({ codigo: 3, estado: "En Proceso", rnc: ecf.rnc, encf: ecf.encf });

    const final = await client.waitFinal(sent.body.trackId, token);
    expect(final).toEqual({
      trackId: sent.body.trackId,
      codigo: 1,
      estado: "Aceptado",
      rnc: ecf.rnc,
      encf: ecf.encf,
      secuenciaUtilizada: true,
      fechaRecepcion: expect.stringMatching(/-04:00$/),
      mensajes: [],
    });
  });

  it("stays En Proceso for the configured time, then turns final", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    const started = Date.now();
    const { body } = await client.send(ecf.xml, ecf.fileName, token);
    const final = await client.waitFinal(body.trackId, token);
    expect(final.codigo).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

type Change = Parameters<typeof signedEcf>[3];
interface RejectionCase {
  tipo: TipoeCF;
  options?: object;
  change?: Change;
  tamper?: (xml: string) => string;
  codigo: 2 | 4;
  codes: number[];
  secuenciaUtilizada: boolean;
}

describe("rejections and conditional acceptance", () => {
  const cases: [string, RejectionCase][] = [
    [
      "a signature broken after signing",
      {
        tipo: "31",
        tamper: (xml) => xml.replace("IT SOLUCLICK SRL", "IT SOLUCLICK SA"),
        codigo: 2,
        codes: [2],
        secuenciaUtilizada: false,
      },
    ],
    [
      "an XSD violation",
      {
        tipo: "31",
        change: (_, at) => void (at("Encabezado", "IdDoc").TipoIngresos = "99"),
        codigo: 2,
        codes: [1],
        secuenciaUtilizada: false,
      },
    ],
    [
      "an e-NCF of another type than TipoeCF",
      {
        tipo: "31",
        change: (_, at) => void (at("Encabezado", "IdDoc").eNCF = "E330000000777"),
        codigo: 2,
        codes: [3],
        secuenciaUtilizada: false,
      },
    ],
    [
      "an expired FechaVencimientoSecuencia (615)",
      {
        tipo: "31",
        change: (_, at) => void (at("Encabezado", "IdDoc").FechaVencimientoSecuencia = "31-12-2020"),
        codigo: 2,
        codes: [615],
        secuenciaUtilizada: false,
      },
    ],
    [
      "an E34 text correction (CodigoModificacion 2) with amounts in Totales (1930, 1960)",
      {
        tipo: "34",
        options: { codigoModificacion: "2" },
        change: (_, at) =>
          void Object.assign(at("Encabezado", "Totales"), { MontoExento: "100.00", MontoTotal: "100.00" }),
        codigo: 2,
        codes: [1930, 1960],
        secuenciaUtilizada: true,
      },
    ],
    [
      "an E34 text correction whose MontoTotal is not zero (1960)",
      {
        tipo: "34",
        options: { codigoModificacion: "2" },
        change: (_, at) => void (at("Encabezado", "Totales").MontoTotal = "5.00"),
        codigo: 2,
        codes: [1960],
        secuenciaUtilizada: true,
      },
    ],
    [
      "a FechaEmision that is no calendar date (a format rule the XSD pattern lets through)",
      {
        tipo: "31",
        change: (_, at) => void (at("Encabezado", "Emisor").FechaEmision = "30-02-2025"),
        codigo: 2,
        codes: [5],
        secuenciaUtilizada: true,
      },
    ],
    [
      "a MontoTotal beyond the global tolerance (Aceptado Condicional)",
      {
        tipo: "31",
        change: (_, at) => void (at("Encabezado", "Totales").MontoTotal = "4020.00"),
        codigo: 4,
        codes: [1001],
        secuenciaUtilizada: true,
      },
    ],
  ];

  it.each(cases)("%s", async (_, c) => {
    const ecf: SignedDocument = await signedEcf(identity, c.tipo, { ...c.options, sequence: next() }, c.change);
    const xml = c.tamper ? c.tamper(ecf.xml) : ecf.xml;
    const sent = await client.send(xml, ecf.fileName, token);
    expect(sent.status).toBe(200);
    const final = await client.waitFinal(sent.body.trackId, token);
    expect(final.codigo).toBe(c.codigo);
    expect(final.estado).toBe(c.codigo === 2 ? "Rechazado" : "Aceptado Condicional");
    expect(final.secuenciaUtilizada).toBe(c.secuenciaUtilizada);
    expect([...new Set(final.mensajes.map((m: { codigo: number }) => m.codigo))]).toEqual(c.codes);
    for (const m of final.mensajes) expect(m.valor).toEqual(expect.any(String));
  });

  it("a total within tolerance is plainly accepted", async () => {
    const ecf = await signedEcf(
      identity,
      "31",
      { sequence: next() },
      (_, at) => void (at("Encabezado", "Totales").MontoTotal = "4015.00"),
    );
    const sent = await client.send(ecf.xml, ecf.fileName, token);
    expect((await client.waitFinal(sent.body.trackId, token)).codigo).toBe(1);
  });

  it("rejects the second copy of an accepted e-NCF (645), even when both arrive at once", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: next() });
    const [a, b] = await Promise.all([
      client.send(ecf.xml, ecf.fileName, token),
      client.send(ecf.xml, ecf.fileName, token),
    ]);
    const results = await Promise.all([
      client.waitFinal(a.body.trackId, token),
      client.waitFinal(b.body.trackId, token),
    ]);
    expect(results.map((r) => r.codigo).sort()).toEqual([1, 2]);
    const duplicate = results.find((r) => r.codigo === 2)!;
    expect(duplicate.mensajes).toEqual([{ codigo: 645, valor: expect.stringContaining(ecf.encf) }]);
    expect(duplicate.secuenciaUtilizada).toBe(true);
  });

  it("accepts a resend after a rejection that frees the number", async () => {
    const expired = await signedEcf(
      identity,
      "31",
      { sequence: next() },
      (_, at) => void (at("Encabezado", "IdDoc").FechaVencimientoSecuencia = "01-01-2021"),
    );
    const first = await client.send(expired.xml, expired.fileName, token);
    expect((await client.waitFinal(first.body.trackId, token)).secuenciaUtilizada).toBe(false);
    const fixed = await signedEcf(identity, "31", { sequence: sequence });
    const second = await client.send(fixed.xml, fixed.fileName, token);
    expect((await client.waitFinal(second.body.trackId, token)).codigo).toBe(1);
  });
});

describe("refused at the door (HTTP 400, no track id)", () => {
  const cases: [string, () => Promise<{ xml: string; fileName: string }>, RegExp][] = [
    [
      "a file name that is not RNCEmisor + e-NCF",
      async () => ({ ...(await signedEcf(identity, "31", { sequence: next() })), fileName: "factura.xml" }),
      /nombre del archivo/,
    ],
    ["an E32 under RD$250,000 (goes to recepcionfc)", () => signedEcf(identity, "32", { sequence: next() }), /RFCE/],
    ["an RFCE", () => signedRfce(identity, { sequence: next() }), /recepcionfc/],
    [
      "something that is not XML",
      async () => ({ xml: "hola", fileName: "130862346E310000000001.xml" }),
      /bien formado/,
    ],
    ["another DGII document", async () => ({ xml: "<ARECF></ARECF>", fileName: "x.xml" }), /ECF/],
  ];
  it.each(cases)("%s", async (_, make, message) => {
    const { xml, fileName } = await make();
    const { status, body } = await client.send(xml, fileName, token);
    expect(status).toBe(400);
    expect(body.trackId).toBeNull();
    expect(body.mensaje).toMatch(message);
    // Nothing gets a track id, but the refusal is listed for debugging.
    expect((await control(sandbox.url, "GET", "/received?kind=ecf")).body).toEqual([
      expect.objectContaining({
        trackId: null,
        fileName,
        outcome: { httpStatus: 400, error: body.error, mensaje: body.mensaje },
      }),
    ]);
  });

  it("a request without the xml field", async () => {
    const form = new FormData();
    form.append("archivo", "x");
    const response = await fetch(client.url("/recepcion/api/facturaselectronicas"), {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ trackId: null, mensaje: "El campo xml es requerido" });
  });
});
