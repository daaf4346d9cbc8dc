import { buildSemilla, signXml } from "@ecf/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { createSandboxApp } from "../src/app.ts";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { delegate, DgiiClient } from "./support/dgii-client.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let client: DgiiClient;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  client = new DgiiClient(sandbox.url);
});
afterAll(() => sandbox.close());

describe("seed", () => {
  it("is a SemillaModel with a fresh valor and a Santo Domingo fecha", async () => {
    const [a, b] = await Promise.all([client.seed(), client.seed()]);
    for (const seed of [a, b]) {
      expect(seed).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><SemillaModel xmlns:xsi=/);
      expect(seed).toMatch(/<fecha>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}-04:00<\/fecha>/);
    }
    const valor = (xml: string) => /<valor>([^<]+)<\/valor>/.exec(xml)![1];
    expect(valor(a)).not.toEqual(valor(b));
  });
});

describe("validarsemilla", () => {
  const universal = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

  it("exchanges a signed seed for a one-hour token", async () => {
    const { status, body } = await client.validateSeed(await client.signedSeed(identity));
    expect(status).toBe(200);
    expect(body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(body.expira).toMatch(universal);
    expect(body.expedido).toMatch(universal);
    expect(Date.parse(body.expira) - Date.parse(body.expedido)).toBe(60 * 60 * 1000);
  });

  const refusals: [string, () => Promise<string>, string][] = [
    [
      "a tampered signed seed",
      async () => (await client.signedSeed(identity)).replace(/<fecha>\d/, "<fecha>1"),
      "firma_invalida",
    ],
    ["an unsigned seed", () => client.seed(), "estructura_invalida"],
    [
      "a seed the sandbox never issued",
      async () => {
        const forged = buildSemilla({ valor: "c2VtaWxsYSBpbnZlbnRhZGE=", fecha: "2026-01-01T10:00:00.0000000-04:00" });
        return signXml(forged, identity.privateKey, identity.certificateDer);
      },
      "semilla_desconocida",
    ],
    [
      "a seed issued for another environment",
      async () =>
        signXml(await new DgiiClient(sandbox.url, "certecf").seed(), identity.privateKey, identity.certificateDer),
      "semilla_desconocida",
    ],
    ["something that is not XML", async () => "not xml", "xml_invalido"],
  ];
  it.each(refusals)("refuses %s", async (_, make, error) => {
    const { status, body } = await client.validateSeed(await make());
    expect(status).toBe(400);
    expect(body.error).toBe(error);
  });

  it("refuses a seed used before", async () => {
    const signed = await client.signedSeed(identity);
    expect((await client.validateSeed(signed)).status).toBe(200);
    const again = await client.validateSeed(signed);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("semilla_usada");
  });

  it("refuses a seed signed by a certificate other than the one in KeyInfo", async () => {
    const other = await createTestIdentity({ rnc: "101010101" });
    const signed = await client.signedSeed(identity);
    const otherCert = Buffer.from(other.certificateDer).toString("base64");
    const swapped = signed.replace(
      /<X509Certificate>[^<]+<\/X509Certificate>/,
      `<X509Certificate>${otherCert}</X509Certificate>`,
    );
    const { status, body } = await client.validateSeed(swapped);
    expect(status).toBe(400);
    expect(body.error).toBe("firma_invalida");
  });
});

describe("bearer token", () => {
  const protectedCalls: [string, (token?: string) => Promise<{ status: number; body: any }>][] = [
    ["consultaresultado", (token) => client.result("x", token!)],
    ["recepcion", (token) => client.send("<ECF/>", "x.xml", token!)],
    [
      "consultatrackids",
      (token) => client.get("/consultatrackids/api/trackids/consulta?rncemisor=130862346&encf=E310000000001", token),
    ],
  ];

  it.each(protectedCalls)("%s answers 401 without a token, in ProblemDetails form", async (_, call) => {
    const { status, body } = await call(undefined);
    expect(status).toBe(401);
    expect(body).toMatchObject({ title: "Unauthorized", status: 401 });
  });

  it.each(protectedCalls)("%s answers 401 to an unknown token", async (_, call) => {
    expect((await call("eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl")).status).toBe(401);
  });

  it("sends the RFC 6750 challenge", async () => {
    const response = await fetch(client.url("/consultaresultado/api/consultas/estado?trackid=x"));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
  });

  it("is bound to the environment that issued it", async () => {
    const token = await client.login(identity);
    expect((await client.result("x", token)).status).toBe(200);
    expect((await new DgiiClient(sandbox.url, "ecf").result("x", token)).status).toBe(401);
  });

  it("accepts any case in paths and query names, as DGII's services do", async () => {
    const token = await client.login(identity);
    const response = await fetch(`${sandbox.url}/TesteCF/ConsultaResultado/api/Consultas/Estado?TrackId=abc`, {
      headers: { authorization: `bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ trackId: "abc", codigo: 0, estado: "No encontrado" });
  });
});

describe("expiry (injected clock)", () => {
  it.each([
    ["the seed", { seedTtlMs: 1000 }, 1001, 0, 400],
    ["the token", { tokenTtlMs: 1000 }, 0, 1000, 401],
    ["neither", { seedTtlMs: 1000, tokenTtlMs: 1000 }, 999, 999, 200],
  ] as const)("refuses once %s has expired", async (_, ttl, afterSeedMs, afterTokenMs, finalStatus) => {
    let now = Date.parse("2026-06-01T12:00:00Z");
    const app = createSandboxApp({ ...ttl, now: () => new Date(now) });
    const seed = await (await app.request("/testecf/autenticacion/api/autenticacion/semilla")).text();
    const form = new FormData();
    form.append("xml", new Blob([await signXml(seed, identity.privateKey, identity.certificateDer)]), "semilla.xml");
    now += afterSeedMs;
    const login = await app.request("/testecf/autenticacion/api/autenticacion/validarsemilla", {
      method: "POST",
      body: form,
    });
    if (finalStatus === 400) {
      expect(login.status).toBe(400);
      expect(((await login.json()) as { error: string }).error).toBe("semilla_vencida");
      return;
    }
    const { token } = (await login.json()) as { token: string };
    now += afterTokenMs;
    const query = await app.request("/testecf/consultaresultado/api/consultas/estado?trackid=x", {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(query.status).toBe(finalStatus);
  });
});
