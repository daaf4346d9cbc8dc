// Answers in XML when the client's Accept asks for XML (and not JSON), with the document's roots.
import { parseXmlTree, signXml } from "@ecf/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedEcf } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let client: DgiiClient;
let token: string;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0, processingMs: 0 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  client = new DgiiClient(sandbox.url);
  token = await client.login(identity);
});
afterAll(() => sandbox.close());

async function asXml(path: string, init: RequestInit & { xml?: string; fileName?: string } = {}) {
  const headers: Record<string, string> = { accept: "application/xml", authorization: `Bearer ${token}` };
  let body: FormData | undefined;
  if (init.xml) {
    body = new FormData();
    body.append("xml", new Blob([init.xml]), init.fileName ?? "x.xml");
  }
  const response = await fetch(client.url(path), { method: body ? "POST" : "GET", headers, ...(body ? { body } : {}) });
  expect(response.headers.get("content-type")).toMatch(/^application\/xml/);
  return { status: response.status, tree: parseXmlTree(await response.text()) };
}

const names = (tree: { children: { name: string }[] }) => tree.children.map((c) => c.name);

describe("Accept: application/xml", () => {
  it("validarsemilla answers RespuestaAutenticacion", async () => {
    const seed = await client.seed();
    const { tree } = await asXml("/autenticacion/api/autenticacion/validarsemilla", {
      xml: await signXml(seed, identity.privateKey, identity.certificateDer),
    });
    expect(tree.name).toBe("RespuestaAutenticacion");
    expect(names(tree)).toEqual(["token", "expira", "expedido"]);
  });

  it("recepcion, consultaresultado and consultatrackids answer their documented roots", async () => {
    const ecf = await signedEcf(identity, "31", { sequence: 1 });
    const sent = await asXml("/recepcion/api/facturaselectronicas", { xml: ecf.xml, fileName: ecf.fileName });
    expect(sent.tree.name).toBe("RespuestaRecepcion");
    const trackId = sent.tree.children.find((c) => c.name === "trackId")!.text;
    await client.waitFinal(trackId, token);

    const result = await asXml(`/consultaresultado/api/consultas/estado?trackid=${trackId}`);
    expect(result.tree.name).toBe("RespuestaConsultaTrackId");
    expect(names(result.tree)).toEqual([
      "trackId",
      "codigo",
      "estado",
      "rnc",
      "encf",
      "secuenciaUtilizada",
      "fechaRecepcion",
    ]);
    expect(result.tree.children.find((c) => c.name === "estado")!.text).toBe("Aceptado");

    const list = await asXml(`/consultatrackids/api/trackids/consulta?rncemisor=${ecf.rnc}&encf=${ecf.encf}`);
    expect(list.tree.name).toBe("ArrayOfTrackingDetalle");
    expect(names(list.tree)).toEqual(["TrackingDetalle"]);
  });

  it("a refusal keeps its status, in XML", async () => {
    const { status, tree } = await asXml("/recepcion/api/facturaselectronicas", { xml: "<ARECF/>" });
    expect(status).toBe(400);
    expect(tree.name).toBe("RespuestaRecepcion");
    expect(names(tree)).toEqual(["error", "mensaje"]);
  });

  it.each(["application/json", "*/*", "application/json, application/xml"])("Accept %s stays JSON", async (accept) => {
    const response = await fetch(client.url("/consultaresultado/api/consultas/estado?trackid=x"), {
      headers: { accept, authorization: `Bearer ${token}` },
    });
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });
});
