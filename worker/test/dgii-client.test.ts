import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { DgiiClient } from "../src/dgii/client.ts";
import { DgiiError, errorFromResponse, messagesFromBody } from "../src/dgii/errors.ts";
import { hostsFor, PRODUCTION_HOSTS } from "../src/dgii/endpoints.ts";
import { database } from "../src/db/client.ts";
import { dgiiClientFor, signerFor } from "../src/dgii/for-company.ts";
import { clearFaults, issue, issueRequest, issuer, received, sandboxUrl, setFault } from "./support/issuing.ts";

afterEach(clearFaults);

describe("DGII error bodies", () => {
  it.each([
    ["plain text", "Servicio no disponible", "text/plain", [{ codigo: null, valor: "Servicio no disponible" }]],
    [
      "JSON mensaje",
      JSON.stringify({ error: "x", mensaje: "El token ha expirado" }),
      "application/json",
      [{ codigo: null, valor: "El token ha expirado" }],
    ],
    [
      "JSON mensajes array",
      JSON.stringify({
        mensajes: [
          { codigo: 1930, valor: "Monto total no coincide" },
          { codigo: "645", valor: "Duplicado" },
        ],
      }),
      "application/json",
      [
        { codigo: "1930", valor: "Monto total no coincide" },
        { codigo: "645", valor: "Duplicado" },
      ],
    ],
    [
      "a bare array of strings",
      JSON.stringify(["Uno", "Dos"]),
      "application/json",
      [
        { codigo: null, valor: "Uno" },
        { codigo: null, valor: "Dos" },
      ],
    ],
    [
      "problem+json",
      JSON.stringify({ title: "Unauthorized", status: 401, detail: "Token inválido" }),
      "application/problem+json",
      [{ codigo: null, valor: "Token inválido" }],
    ],
    [
      "HTML error page",
      "<!DOCTYPE html><html><head><style>p{}</style></head><body><h1>503</h1><p>Service&nbsp;Unavailable</p></body></html>",
      "text/html",
      [{ codigo: null, valor: "503 Service Unavailable" }],
    ],
    ["empty", "", "text/plain", []],
  ])("%s", (_label, body, type, expected) => {
    expect(messagesFromBody(body, type)).toEqual(expected);
  });

  it("keeps the status and classifies availability", async () => {
    const unavailable = await errorFromResponse(
      new Response("<html><body>Bad gateway</body></html>", { status: 502, headers: { "content-type": "text/html" } }),
      "recepcion",
    );
    expect(unavailable).toBeInstanceOf(DgiiError);
    expect(unavailable.status).toBe(502);
    expect(unavailable.isUnavailable).toBe(true);
    const refused = await errorFromResponse(
      new Response(JSON.stringify({ mensaje: "Archivo no válido" }), { status: 400 }),
      "recepcion",
    );
    expect(refused.isUnavailable).toBe(false);
    expect(refused.message).toContain("Archivo no válido");
  });
});

describe("hosts", () => {
  it("production configuration points at DGII's hosts, local at the sandbox", () => {
    expect(hostsFor({ DGII_TARGET: "dgii" as never, DGII_SANDBOX_URL: "http://x" as never })).toEqual(PRODUCTION_HOSTS);
    expect(PRODUCTION_HOSTS).toEqual({
      ecf: "https://ecf.dgii.gov.do",
      fc: "https://fc.dgii.gov.do",
      status: "https://statusecf.dgii.gov.do",
    });
    expect(hostsFor({ DGII_TARGET: "sandbox", DGII_SANDBOX_URL: "http://127.0.0.1:9/" as never }).ecf).toBe(
      "http://127.0.0.1:9",
    );
  });
});

describe("DGII client against the sandbox", () => {
  async function clientFor(rnc: string) {
    const company = (await database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.rnc, rnc) }))!;
    return dgiiClientFor(env, company, await signerFor(env, company));
  }

  it("authenticates once per issuer and certificate and reuses the token", async () => {
    const { token } = await issuer();
    // The sandbox files seeds under the certificate holder's id, shared by every test issuer.
    const seeds = async () => (await received("131880681")).filter((r) => r.kind === "semilla").length;
    const before = await seeds();
    await issue(token, issueRequest("31"));
    await issue(token, issueRequest("31"));
    expect((await seeds()) - before).toBe(1);
  });

  it("reports DGII's availability from the status service", async () => {
    const { company } = await issuer();
    const client = await clientFor(company.rnc);
    expect(await client.isAvailable()).toBe(true);
    await setFault({ mode: "down" });
    expect(await client.isAvailable()).toBe(false);
  });

  it("asks the status service once for callers who find no fresh answer at the same moment", async () => {
    const { company } = await issuer();
    const owner = (await database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.rnc, company.rnc) }))!;
    let asks = 0;
    const client = dgiiClientFor(env, owner, await signerFor(env, owner), (what) => {
      if (what === "verificarestado") asks++;
    });
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.isAvailable()));
    expect(answers).toEqual(Array(10).fill(true));
    expect(asks).toBe(1);
    // Answered, the ask is not kept beyond DGII_STATUS_TTL_MS (0 in these tests): the next caller asks again.
    await setFault({ mode: "down" });
    expect(await client.isAvailable()).toBe(false);
    expect(asks).toBe(2);
  });

  it("says until when its status answer is reused, and reuses it that long", async () => {
    const { company } = await issuer();
    const owner = (await database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.rnc, company.rnc) }))!;
    const signer = await signerFor(env, owner);
    // Its own environment, so the answer kept here (3 s) is no other test's.
    const client = new DgiiClient(
      env,
      {
        environment: "certecf",
        rnc: owner.rnc,
        key: signer.key,
        certificateDer: signer.certificateDer,
        certificateSerial: owner.certificateSerial ?? "",
      },
      { statusTtlMs: 3000 },
    );
    const before = Date.now();
    const status = await client.status();
    expect(status.up).toBe(true);
    expect(status.until).toBeGreaterThanOrEqual(before + 3000);
    expect(status.until).toBeLessThanOrEqual(Date.now() + 3000);
    await setFault({ mode: "down" });
    expect(await client.status()).toEqual(status);
  });

  it("times out a slow DGII and treats it as unreachable", async () => {
    const { company } = await issuer();
    const owner = (await database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.rnc, company.rnc) }))!;
    const signer = await signerFor(env, owner);
    const client = new DgiiClient(
      env,
      {
        environment: "testecf",
        rnc: owner.rnc,
        key: signer.key,
        certificateDer: signer.certificateDer,
        certificateSerial: "slow-test",
      },
      { timeoutMs: 300 },
    );
    await setFault({ mode: "slow", delayMs: 2000 });
    const error = await client.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DgiiError);
    expect((error as DgiiError).kind).toBe("timeout");
    expect((error as DgiiError).isUnavailable).toBe(true);
  });

  it("a reset connection is unreachable, not a crash", async () => {
    const { company } = await issuer();
    const client = await clientFor(company.rnc);
    client.forgetToken();
    await setFault({ mode: "down", reset: true });
    const error = await client.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DgiiError);
    expect((error as DgiiError).isUnavailable).toBe(true);
    expect(sandboxUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("consultatrackids lists what DGII received for an e-NCF", async () => {
    const { company, token } = await issuer();
    const { body } = await issue(token, issueRequest("31"));
    const client = await clientFor(company.rnc);
    const list = await client.consultaTrackIds(body.encf);
    expect(list.map((t) => t.trackId)).toEqual([body.trackId]);
    expect(await client.consultaTrackIds("E310000099999")).toEqual([]);
  });
});
