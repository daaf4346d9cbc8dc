// The emisor-receptor simulator against a receiver running over real HTTP. The receiver here is a
// minimal stand-in for the platform's /fe/recepcion/api/ecf, answering a signed ARECF.
import { serve } from "@hono/node-server";
import { buildArecf, parseAcecf, parseXmlTree, signEcfXml, verifyXml } from "@ecf/shared";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { control, delegate } from "./support/dgii-client.ts";
import { signedEcf } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let receiverUrl: string;
let closeReceiver: () => void;
const received: { fileName: string; authorization: string | null }[] = [];

const field = (xml: string, name: string) =>
  parseXmlTree(xml)
    .children.flatMap((c) => c.children)
    .find((c) => c.name === name)?.text;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  const receiver = new Hono();
  receiver.post("/fe/recepcion/api/ecf", async (c) => {
    const part = (await c.req.formData()).get("xml") as File;
    received.push({ fileName: part.name, authorization: c.req.header("authorization") ?? null });
    const ecf = await part.text();
    const arecf = buildArecf({
      RNCEmisor: /<RNCEmisor>(\d+)</.exec(ecf)![1]!,
      RNCComprador: /<RNCComprador>(\d+)</.exec(ecf)![1]!,
      eNCF: /<eNCF>(\w+)</.exec(ecf)![1]!,
      Estado: "0",
      FechaHoraAcuseRecibo: "02-04-2025 09:00:00",
    });
    const signed = await signEcfXml(arecf, identity.privateKey, identity.certificateDer);
    return c.body(signed, 200, { "content-type": "application/xml" });
  });
  receiver.post("/tampered/fe/recepcion/api/ecf", async (c) => {
    const arecf = buildArecf({
      RNCEmisor: "130862346",
      RNCComprador: "131880738",
      eNCF: "E310000000001",
      Estado: "0",
      FechaHoraAcuseRecibo: "02-04-2025 09:00:00",
    });
    const signed = await signEcfXml(arecf, identity.privateKey, identity.certificateDer);
    return c.body(signed.replace("<Estado>0<", "<Estado>1<"), 200, { "content-type": "application/xml" });
  });
  await new Promise<void>((resolve) => {
    const server = serve({ fetch: receiver.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
      receiverUrl = `http://127.0.0.1:${info.port}`;
      closeReceiver = () => server.close();
      resolve();
    });
  });
});
afterAll(async () => {
  closeReceiver();
  await sandbox.close();
});

describe("POST /__sandbox/emisor/send", () => {
  it("posts the e-CF as multipart xml named RNCEmisor + e-NCF and reports the verified ARECF", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: 42 });
    const { status, body } = await control(sandbox.url, "POST", "/emisor/send", {
      to: receiverUrl,
      xml: ecf.xml,
      token: "abc",
    });
    expect(status).toBe(200);
    expect(received.at(-1)).toEqual({ fileName: ecf.fileName, authorization: "Bearer abc" });
    expect(body).toMatchObject({
      url: `${receiverUrl}/fe/recepcion/api/ecf`,
      fileName: ecf.fileName,
      status: 200,
      arecf: { RNCEmisor: ecf.rnc, RNCComprador: "131880738", eNCF: ecf.encf, Estado: "0" },
      signature: { ok: true },
    });
    expect(field(body.body, "eNCF")).toBe(ecf.encf);
  });

  it("says when the ARECF's signature does not verify", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: 43 });
    const { body } = await control(sandbox.url, "POST", "/emisor/send", {
      to: `${receiverUrl}/tampered`,
      xml: ecf.xml,
    });
    expect(body.arecf.Estado).toBe("1");
    expect(body.signature).toMatchObject({ ok: false });
  });

  it("authenticates first when asked, here against the sandbox's own emisor-receptor", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: 44 });
    const { status, body } = await control(sandbox.url, "POST", "/emisor/send", {
      to: `${sandbox.url}/testecf/emisorreceptor`,
      xml: ecf.xml,
      authenticate: true,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      authentication: { status: 200 },
      status: 200,
      arecf: { eNCF: ecf.encf, Estado: "0" },
      signature: { ok: true },
    });
    const log = (await control(sandbox.url, "GET", "/requests?service=emisorreceptor")).body.map(
      (r: { path: string }) => r.path,
    );
    expect(log).toEqual([
      "/testecf/emisorreceptor/fe/autenticacion/api/semilla",
      "/testecf/emisorreceptor/fe/autenticacion/api/validacioncertificado",
      "/testecf/emisorreceptor/fe/recepcion/api/ecf",
    ]);
  });

  it("reports a receiver whose authentication fails", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: 45 });
    const { status, body } = await control(sandbox.url, "POST", "/emisor/send", {
      to: receiverUrl,
      xml: ecf.xml,
      authenticate: true,
    });
    expect(status).toBe(502);
    expect(body.authentication).toMatchObject({ status: 404 });
  });

  it.each([
    [{ to: "ftp://x", xml: "<ECF/>" }, 400],
    [{ to: "http://127.0.0.1:1", xml: "<ECF/>", token: "t", authenticate: true }, 400],
    [{ to: "http://127.0.0.1:1", xml: "<ECF/>" }, 502],
  ])("refuses or reports %j", async (request, status) => {
    expect((await control(sandbox.url, "POST", "/emisor/send", request)).status).toBe(status);
  });
});

describe("POST /__sandbox/emisor/send-approval", () => {
  const fields = {
    RNCEmisor: "131880681",
    eNCF: "E310000000077",
    FechaEmision: "01-04-2025",
    MontoTotal: "1180.00",
    RNCComprador: "131880738",
  };

  it("builds and signs the ACECF, authenticates at the sandbox's emisor-receptor, and reports its answer", async () => {
    const { status, body } = await control(sandbox.url, "POST", "/emisor/send-approval", {
      to: `${sandbox.url}/testecf/emisorreceptor`,
      authenticate: true,
      ...fields,
      Estado: "2",
      DetalleMotivoRechazo: "Mercancía dañada",
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      url: `${sandbox.url}/testecf/emisorreceptor/fe/aprobacioncomercial/api/ecf`,
      fileName: "131880738E310000000077.xml",
      authentication: { status: 200 },
      status: 200,
    });
    const acecf = parseAcecf(body.xml);
    expect(acecf).toMatchObject({ ...fields, Estado: "2", DetalleMotivoRechazo: "Mercancía dañada" });
    expect(acecf.FechaHoraAprobacionComercial).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    expect((await verifyXml(body.xml)).ok).toBe(true);
    const log = (await control(sandbox.url, "GET", "/requests?service=emisorreceptor")).body.map(
      (r: { path: string }) => r.path,
    );
    expect(log.slice(-3)).toEqual([
      "/testecf/emisorreceptor/fe/autenticacion/api/semilla",
      "/testecf/emisorreceptor/fe/autenticacion/api/validacioncertificado",
      "/testecf/emisorreceptor/fe/aprobacioncomercial/api/ecf",
    ]);
  });

  it.each([
    [{ to: "ftp://x", ...fields, Estado: "1" }],
    [{ to: "http://127.0.0.1:1", ...fields, Estado: "3" }],
    [{ to: "http://127.0.0.1:1", ...fields, Estado: "2" }],
    [{ to: "http://127.0.0.1:1", ...fields, FechaEmision: "2025-04-01", Estado: "1" }],
    [{ to: "http://127.0.0.1:1", xml: "<ACECF/>", token: "t", authenticate: true }],
  ])("refuses %j (400)", async (request) => {
    expect((await control(sandbox.url, "POST", "/emisor/send-approval", request)).status).toBe(400);
  });
});
