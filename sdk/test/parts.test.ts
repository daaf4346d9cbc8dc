// The client's small parts on their own: a problem answer read into ProblemError (Retry-After as
// seconds or as a date), a JWT's exp, and how a body is written (JSON, multipart, as it is).
import { describe, expect, it } from "vitest";
import {
  answerOf,
  createClient,
  isLostAnswer,
  ProblemError,
  retryAfterSeconds,
  serializeBody,
  tokenExpiry,
} from "../src/index.ts";

const problem = {
  type: "about:blank",
  title: "Too many requests",
  status: 429,
  detail: "Too many failed logins; try again in 30 seconds.",
  code: "too_many_requests",
  requestId: "req-1",
  instance: "/login",
  errors: [{ path: "/apiKey", code: "throttled", message: "Wait." }],
  limit: 10,
};

describe("ProblemError.from", () => {
  it("reads an application/problem+json answer: every member, extensions kept, Retry-After in seconds", async () => {
    const response = new Response(JSON.stringify(problem), {
      status: 429,
      headers: { "Content-Type": "application/problem+json; charset=utf-8", "Retry-After": "30" },
    });
    const error = await ProblemError.from(response);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({
      status: 429,
      code: "too_many_requests",
      title: problem.title,
      detail: problem.detail,
      requestId: "req-1",
      instance: "/login",
      retryAfter: 30,
    });
    expect(error!.errors).toEqual(problem.errors);
    expect(error!.body.limit).toBe(10);
    expect(error!.message).toBe(`429 too_many_requests: ${problem.detail}`);
    // The answer's body is left unread for whoever else wants it.
    expect(response.bodyUsed).toBe(false);
  });

  it("leaves other answers alone: JSON that is not a problem, or a problem media type without a problem inside", async () => {
    expect(
      await ProblemError.from(
        new Response(JSON.stringify(problem), { status: 503, headers: { "Content-Type": "application/json" } }),
      ),
    ).toBeUndefined();
    expect(
      await ProblemError.from(
        new Response("<html>", { status: 502, headers: { "Content-Type": "application/problem+json" } }),
      ),
    ).toBeUndefined();
  });
});

describe("retryAfterSeconds", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");
  it.each([
    ["120", 120],
    [" 0 ", 0],
    ["Wed, 25 Nov 2026 12:01:30 GMT", 90],
    ["Wed, 25 Nov 2026 11:00:00 GMT", 0],
    ["soon", undefined],
    ["", undefined],
    [null, undefined],
  ])("%j is %j", (header, seconds) => expect(retryAfterSeconds(header, now)).toBe(seconds));
});

describe("tokenExpiry", () => {
  const jwt = (payload: object) =>
    `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.c2ln`;
  it("reads exp from the payload (base64url, unpadded)", () => {
    expect(tokenExpiry(jwt({ sub: "k~?>", exp: 1_795_000_000 }))).toBe(1_795_000_000);
  });
  it("is undefined without a numeric exp, or for what is not a JWT", () => {
    expect(tokenExpiry(jwt({ exp: "tomorrow" }))).toBeUndefined();
    expect(tokenExpiry("an-admin-secret")).toBeUndefined();
    expect(tokenExpiry("a.!!!.b")).toBeUndefined();
  });
});

describe("serializeBody", () => {
  it("writes an object as JSON", () => {
    expect(serializeBody({ a: 1, b: ["x"] })).toBe('{"a":1,"b":["x"]}');
  });
  it("writes an object holding a file as multipart form parts, the file with its name", async () => {
    const form = serializeBody({
      file: new File([new Uint8Array([1, 2, 3])], "cert.p12"),
      password: "secret",
    }) as FormData;
    expect(form).toBeInstanceOf(FormData);
    const file = form.get("file") as File;
    expect([file.name, [...new Uint8Array(await file.arrayBuffer())]]).toEqual(["cert.p12", [1, 2, 3]]);
    expect(form.get("password")).toBe("secret");
  });
  it("sends a Blob, bytes or a FormData as they are", () => {
    const blob = new Blob(["code,name\r\n"], { type: "text/csv" });
    const bytes = new Uint8Array([1]);
    const form = new FormData();
    for (const body of [blob, bytes, form]) expect(serializeBody(body)).toBe(body);
  });
});

describe("answerOf", () => {
  it("is the data, else the error answer", () => {
    expect(answerOf({ data: { estado: "Aceptado" } })).toEqual({ estado: "Aceptado" });
    expect(answerOf({ error: { estado: "Contingencia" } })).toEqual({ estado: "Contingencia" });
    expect(answerOf({})).toBeUndefined();
  });
});

describe("a lost answer is sent again with the same Idempotency-Key", () => {
  // A scripted fetch: these tests are about the client's decision alone (resend or not, what key);
  // flow.test.ts resends against the real worker.
  const proxyDrop = () =>
    new Response("Your worker restarted mid-request. Please try sending the request again.", {
      status: 503,
      headers: { "Retry-After": "0" },
    });
  const receipt = (status: number, estado: string) =>
    Response.json({ encf: "E310000000001", estado }, { status, headers: { "Retry-After": "60" } });
  function scripted(...answers: (() => Response)[]) {
    const sent: Request[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Request(input, init));
      const next = answers[sent.length - 1];
      if (!next) throw new Error(`unexpected request ${sent.length}`);
      return next();
    };
    const retries: string[] = [];
    const api = createClient({
      baseUrl: "http://ecf.test",
      fetch: fetch as typeof globalThis.fetch,
      retryDelayMs: 1,
      onRetry: (r) => retries.push(`${r.attempt} ${r.reason}`),
    });
    return { api, sent, retries };
  }
  const e31 = { Encabezado: { IdDoc: { TipoeCF: "31" } } } as never;

  it("after a proxy's plain-text 503 and a network error, with the same key, until the service answers", async () => {
    const lost = () => {
      throw new TypeError("fetch failed");
    };
    const { api, sent, retries } = scripted(proxyDrop, lost, () => receipt(200, "Aceptado"));
    const { data, response } = await api.POST("/fe/recepcion/ecf", { body: e31 });
    expect(response.status).toBe(200);
    expect(data?.estado).toBe("Aceptado");
    expect(sent).toHaveLength(3);
    const keys = new Set(sent.map((r) => r.headers.get("Idempotency-Key")));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(retries).toEqual(["1 HTTP 503", "2 TypeError: fetch failed"]);
    expect(await sent[2]!.json()).toEqual(e31);
  });

  it("a connection error first, then the service's answer", async () => {
    const { api, sent } = scripted(
      () => {
        throw new TypeError("fetch failed");
      },
      () => receipt(202, "En Proceso"),
    );
    expect((await api.POST("/fe/recepcion/ecf", { body: e31 })).data?.estado).toBe("En Proceso");
    expect(sent).toHaveLength(2);
  });

  it("never after the service's own 503: a receipt in Contingencia, or a problem", async () => {
    const contingency = scripted(() => receipt(503, "Contingencia"));
    const sent = await contingency.api.POST("/fe/recepcion/ecf", { body: e31 });
    expect(sent.response.status).toBe(503);
    expect(answerOf(sent)).toMatchObject({ estado: "Contingencia" });
    expect(contingency.sent).toHaveLength(1);
    const unreachable = scripted(
      () =>
        new Response(JSON.stringify({ ...problem, status: 503, code: "dgii_unavailable" }), {
          status: 503,
          headers: { "Content-Type": "application/problem+json" },
        }),
    );
    await expect(unreachable.api.POST("/fe/recepcion/ecf", { body: e31 })).rejects.toBeInstanceOf(ProblemError);
    expect(unreachable.sent).toHaveLength(1);
    expect(unreachable.retries).toEqual([]);
  });

  it("never for a call without an Idempotency-Key, and at most networkRetries times", async () => {
    const read = scripted(proxyDrop);
    expect((await read.api.GET("/company/me")).response.status).toBe(503);
    expect(read.sent).toHaveLength(1);
    const down = scripted(proxyDrop, proxyDrop, proxyDrop, proxyDrop);
    expect((await down.api.POST("/fe/recepcion/ecf", { body: e31 })).response.status).toBe(503);
    expect(down.sent).toHaveLength(4); // the call and its 3 resends
    expect(down.retries).toEqual(["1 HTTP 503", "2 HTTP 503", "3 HTTP 503"]);
  });

  it("tells the service's answers from a gateway's", () => {
    expect(isLostAnswer(proxyDrop())).toBe(true);
    expect(
      isLostAnswer(new Response("<html>Bad Gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } })),
    ).toBe(true);
    expect(isLostAnswer(new Response("", { status: 504 }))).toBe(true);
    expect(isLostAnswer(receipt(503, "Contingencia"))).toBe(false);
    expect(
      isLostAnswer(
        new Response("{}", { status: 503, headers: { "Content-Type": "application/problem+json; charset=utf-8" } }),
      ),
    ).toBe(false);
    expect(isLostAnswer(new Response("oops", { status: 500 }))).toBe(false);
  });
});
