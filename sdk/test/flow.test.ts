// The client drives a whole integration against the real worker (wrangler dev + the DGII sandbox,
// test/global-setup.ts): log in with an API key, issue an E32 (the example /openapi.json itself
// publishes), read its state, fetch its PDF; a bad document and a wrong call come back as
// ProblemError with their code and JSON paths; the token is renewed before its `exp`; a lost
// answer is sent again with the same Idempotency-Key and issues nothing twice.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { type components, createClient, type EcfClient, ProblemError, tokenExpiry } from "../src/index.ts";
// @ts-expect-error plain Node ES module without types
import { seed } from "../../scripts/seed.mjs";
import { mkdtempSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

type EcfRequest = components["schemas"]["EcfRequest"];
type Key = { apiKey: string; apiSecret: string };
type Seeded = { company: Key & { rnc: string }; partner: Key & { issuers: string[] } };

const baseUrl = inject("workerUrl");
let demo: Seeded;
let e32: EcfRequest;
let client: EcfClient;

/** The problem a call threw, or a failure when it did not throw one. */
async function problemOf(call: Promise<unknown>): Promise<ProblemError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error("the call did not throw a ProblemError");
}

/** A fetch that sees every request before it is sent, and may refuse to hand back an answer. */
function watchingFetch(lose: (request: Request) => boolean = () => false) {
  const seen: Request[] = [];
  const lost: Response[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push(request.clone());
    const response = await globalThis.fetch(request);
    if (lose(request)) {
      lost.push(response);
      throw new TypeError("fetch failed: the connection dropped before the answer arrived");
    }
    return response;
  };
  return { fetch: fetch as typeof globalThis.fetch, seen, lost };
}

beforeAll(async () => {
  demo = (await seed(baseUrl, join(mkdtempSync(join(tmpdir(), "ecf-sdk-seed-")), "credentials.json"), {
    adminSecret: inject("adminSecret"),
    sandboxUrl: inject("sandboxUrl"),
  })) as Seeded;
  // The integrator's starting point: the E32 example of the published document.
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Record<string, any>;
  e32 = doc.paths["/fe/recepcion/ecf"].post.requestBody.content["application/json"].examples.E32.value as EcfRequest;
  client = createClient({ baseUrl, credentials: { apiKey: demo.company.apiKey, apiSecret: demo.company.apiSecret } });
}, 240_000);

describe("@ecf/client against the worker", () => {
  let encf: string;

  it("logs in on the first call and issues an E32", async () => {
    const { data, response } = await client.POST("/fe/recepcion/ecf", { body: e32 });
    expect([200, 202]).toContain(response.status);
    expect(data?.encf).toMatch(/^E32\d{10}$/);
    expect(["Aceptado", "Aceptado Condicional", "En Proceso"]).toContain(data?.estado);
    expect(data?.codigoSeguridad).toMatch(/^.{6}$/);
    expect(client.session.logins).toBe(1);
    encf = data!.encf;
  });

  it("reads the receipt's state", async () => {
    const { data } = await client.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } });
    expect(data?.encf).toBe(encf);
    expect(["Aceptado", "Aceptado Condicional", "En Proceso"]).toContain(data?.estado);
    expect(client.session.logins).toBe(1);
  });

  it("fetches the receipt's PDF", async () => {
    const { data, response } = await client.GET("/fe/recepcion/ecf/{encf}/pdf", {
      params: { path: { encf } },
      parseAs: "arrayBuffer",
    });
    expect(response.headers.get("content-type")).toMatch(/^application\/pdf/);
    expect(new TextDecoder().decode(new Uint8Array(data!).subarray(0, 5))).toBe("%PDF-");
  });

  it("throws a bad document's problem as ProblemError: its code, each problem's JSON path, the request id", async () => {
    const bad = structuredClone(e32) as Record<string, any>;
    delete bad.DetallesItems[0].NombreItem;
    bad.Encabezado.IdDoc.TipoPago = "9";
    const problem = await problemOf(client.POST("/fe/recepcion/ecf", { body: bad as EcfRequest }));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe("validation_failed");
    expect(problem.title).toBeTruthy();
    expect(problem.requestId).toMatch(/\S/);
    expect(problem.errors.map((e) => e.path)).toEqual(
      expect.arrayContaining(["/DetallesItems/0/NombreItem", "/Encabezado/IdDoc/TipoPago"]),
    );
  });

  it("throws an unknown receipt's 404 as ProblemError not_found", async () => {
    const problem = await problemOf(
      client.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf: "E320009999999" } } }),
    );
    expect([problem.status, problem.code]).toEqual([404, "not_found"]);
  });

  it("refuses wrong credentials with the login's own problem", async () => {
    const stranger = createClient({
      baseUrl,
      credentials: { apiKey: demo.company.apiKey, apiSecret: "not-the-secret" },
    });
    const problem = await problemOf(stranger.GET("/company/me"));
    expect([problem.status, problem.code]).toEqual([401, "unauthorized"]);
  });

  it("sends X-RNC-Emisor: a partner's key acts for the issuer the client names, and without one gets the header's problem", async () => {
    const key = { apiKey: demo.partner.apiKey, apiSecret: demo.partner.apiSecret };
    const unnamed = await problemOf(
      createClient({ baseUrl, credentials: key }).GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } }),
    );
    expect([unnamed.status, unnamed.code]).toEqual([400, "bad_request"]);
    expect(unnamed.errors.map((e) => e.path)).toEqual(["/headers/X-RNC-Emisor"]);
    const partner = createClient({ baseUrl, credentials: key, rnc: demo.company.rnc });
    const { data } = await partner.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } });
    expect(data?.encf).toBe(encf);
  });

  it("logs in again when the token comes within renewBeforeSeconds of its exp, not before", async () => {
    let now = Date.now();
    const watched = watchingFetch();
    const renewing = createClient({
      baseUrl,
      credentials: { apiKey: demo.company.apiKey, apiSecret: demo.company.apiSecret },
      now: () => now,
      renewBeforeSeconds: 60,
      fetch: watched.fetch,
    });
    const bearers = () =>
      watched.seen.filter((r) => !r.url.endsWith("/login")).map((r) => r.headers.get("Authorization"));
    await renewing.GET("/company/me");
    await renewing.GET("/company/me");
    expect(renewing.session.logins).toBe(1);
    const first = bearers()[0]!.replace("Bearer ", "");
    const exp = tokenExpiry(first)!;
    expect(exp * 1000).toBeGreaterThan(now);
    now = (exp - 61) * 1000;
    await renewing.GET("/company/me");
    expect(renewing.session.logins).toBe(1);
    now = (exp - 59) * 1000;
    // The worker's clock has not moved: a new token is issued now and accepted.
    const { data } = await renewing.GET("/company/me");
    expect(data?.registryNumber).toBe(demo.company.rnc);
    expect(renewing.session.logins).toBe(2);
    expect(watched.seen.filter((r) => r.url.endsWith("/login"))).toHaveLength(2);
  });

  it("logs in again and resends once when the worker refuses the token before its exp", async () => {
    let spoiled = 0;
    // The first call's token arrives damaged (as a token signed with a rotated secret would): the worker answers 401.
    const spoiling = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (!request.url.endsWith("/login") && spoiled++ === 0)
        request.headers.set("Authorization", `${request.headers.get("Authorization")}x`);
      return globalThis.fetch(request);
    }) as typeof globalThis.fetch;
    const refused = createClient({
      baseUrl,
      credentials: { apiKey: demo.company.apiKey, apiSecret: demo.company.apiSecret },
      fetch: spoiling,
    });
    const { data } = await refused.GET("/company/me");
    expect(data?.registryNumber).toBe(demo.company.rnc);
    expect(refused.session.logins).toBe(2);
    expect(spoiled).toBe(2);
  });

  it("puts an Idempotency-Key on an issuing call, keeps the caller's own, and sends no key elsewhere", async () => {
    const watched = watchingFetch();
    const watching = createClient({
      baseUrl,
      credentials: { apiKey: demo.company.apiKey, apiSecret: demo.company.apiSecret },
      fetch: watched.fetch,
    });
    const own = `sdk-test-${crypto.randomUUID()}`;
    const first = await watching.POST("/fe/recepcion/ecf", {
      body: e32,
      params: { header: { "Idempotency-Key": own } },
    });
    const replay = await watching.POST("/fe/recepcion/ecf", {
      body: e32,
      params: { header: { "Idempotency-Key": own } },
    });
    expect(replay.data?.encf).toBe(first.data?.encf);
    const fresh = await watching.POST("/fe/recepcion/ecf", { body: e32 });
    expect(fresh.data?.encf).not.toBe(first.data?.encf);
    const issuing = watched.seen.filter((r) => r.method === "POST" && r.url.endsWith("/fe/recepcion/ecf"));
    const keys = issuing.map((r) => r.headers.get("Idempotency-Key"));
    expect(keys.slice(0, 2)).toEqual([own, own]);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    for (const r of watched.seen.filter((r) => r.method === "GET" || r.url.endsWith("/login")))
      expect(r.headers.get("Idempotency-Key")).toBeNull();
  });

  it("resends an issuing call whose answer was lost with the same key: the same receipt, not a second one", async () => {
    let dropped = false;
    const watched = watchingFetch(
      (r) => r.url.endsWith("/fe/recepcion/ecf") && r.method === "POST" && !dropped && (dropped = true),
    );
    const flaky = createClient({
      baseUrl,
      credentials: { apiKey: demo.company.apiKey, apiSecret: demo.company.apiSecret },
      fetch: watched.fetch,
    });
    const { data } = await flaky.POST("/fe/recepcion/ecf", { body: e32 });
    expect(watched.lost).toHaveLength(1);
    const lostAnswer = (await watched.lost[0]!.json()) as { encf: string };
    expect(data?.encf).toBe(lostAnswer.encf);
    const sent = watched.seen.filter((r) => r.method === "POST" && r.url.endsWith("/fe/recepcion/ecf"));
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers.get("Idempotency-Key")).toBe(sent[0]!.headers.get("Idempotency-Key"));
  });

  it("survives a keep-alive connection the server closes as the next request arrives: resent with the same key, answered once", async () => {
    // The drop concurrent.bench.ts saw under load: the server closes a keep-alive connection at its
    // idle limit just as the client sends its next request on it, which gets no answer ("other side
    // closed"; through wrangler's proxy, its plain-text 503). Node 20's fetch could be made to lose
    // that race by a busy event loop; Node 22 and 24 notice the close first. So a TCP relay in front
    // of the worker plays the server's side of the race: armed, it closes the first connection that
    // brings a request after it has carried an answer, as an idle limit would, before the request
    // reaches the worker. Real sockets, nothing mocked in the client.
    const target = new URL(baseUrl);
    let armed = false;
    let dropped = 0;
    const relay = createServer((client: Socket) => {
      let answered = false;
      const upstream = connect(Number(target.port), target.hostname);
      upstream.on("data", (chunk) => ((answered = true), client.write(chunk)));
      client.on("data", (chunk) => {
        if (armed && answered) {
          armed = false;
          dropped++;
          client.destroy();
          upstream.destroy();
          return;
        }
        upstream.write(chunk);
      });
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const relayed = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
    try {
      const retries: string[] = [];
      const watched = watchingFetch();
      const api = createClient({
        baseUrl: relayed,
        credentials: { apiKey: demo.company.apiKey, apiSecret: demo.company.apiSecret },
        fetch: watched.fetch,
        onRetry: (r) => retries.push(r.reason),
      });
      await api.session.bearer();
      const warm = await api.GET("/health");
      expect(warm.response.ok).toBe(true);
      armed = true;
      const sent = await api.POST("/fe/recepcion/ecf", { body: e32 });
      expect(dropped).toBe(1);
      expect([200, 202]).toContain(sent.response.status);
      expect(sent.data?.encf).toMatch(/^E32\d{10}$/);
      const posts = watched.seen.filter((r) => r.method === "POST" && r.url.endsWith("/fe/recepcion/ecf"));
      // Every send of this call (the first and its resends) carried the same key.
      expect(retries.length).toBeGreaterThan(0);
      expect(posts).toHaveLength(1 + retries.length);
      expect(new Set(posts.map((r) => r.headers.get("Idempotency-Key"))).size).toBe(1);
    } finally {
      relay.close();
    }
  }, 120_000);

  it("acts as a till with a paired device token, and as the operator with the admin secret", async () => {
    const admin = createClient({ baseUrl, credentials: { adminSecret: inject("adminSecret") } });
    const { data: companies } = await admin.GET("/admin/companies", {
      params: { query: { registryNumber: demo.company.rnc } },
    });
    const companyId = companies!.companies[0]!.id;
    const { data: created } = await admin.POST("/admin/companies/{id}/devices", {
      params: { path: { id: companyId } },
      body: { name: `SDK till ${crypto.randomUUID().slice(0, 8)}` },
    });
    const { data: paired } = await createClient({ baseUrl }).POST("/devices/pair", {
      body: { pairingCode: created!.pairingCode },
    });
    const till = createClient({ baseUrl, credentials: { deviceToken: paired!.token } });
    const { data: me } = await till.GET("/devices/me");
    expect(me?.device.id).toBe(created!.id);
    expect(me?.company.registryNumber).toBe(demo.company.rnc);
    expect(till.session.logins).toBe(0);
    // The code worked once: a second pairing is the worker's problem, thrown.
    const again = await problemOf(
      createClient({ baseUrl }).POST("/devices/pair", { body: { pairingCode: created!.pairingCode } }),
    );
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
  });
});
