// The device's HTTP client (over @ecf/client) against a scripted fetch: which route a batch takes,
// how each receipt's result in a batch answer is read (as the single upload's answer would be), how
// a failed upload is classified (network, refused, revoked), the fallbacks for a server from before
// batches, and the timeout every call carries.
import { ProblemError } from "@ecf/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeviceApi, UnexpectedAnswer } from "../src/api.ts";
import type { OutboxEntry } from "../src/db.ts";

// Node's Request needs an absolute URL; in the browser the till uses its own origin ("").
const BASE = "http://worker.test";

const entry = (n: number): OutboxEntry => ({
  seq: n,
  saleId: `s${n}`,
  encf: `E32${String(n).padStart(10, "0")}`,
  signedXml: `<ECF><eNCF>E32${String(n).padStart(10, "0")}</eNCF></ECF>`,
  state: "pending",
});
const answer = (encf: string, estado = "En Proceso") => ({ encf, estado, mensajes: [], codigo: "3", trackId: null });
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
/** A problem answer as the worker writes it (application/problem+json), extension members included. */
const problem = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  new Response(
    JSON.stringify({
      type: `https://ecf-edge.dev/problems/${code}`,
      title: code,
      status,
      detail: `${code} detail`,
      code,
      requestId: "req_1",
      instance: "/devices/x",
      errors: [],
      ...extra,
    }),
    { status, headers: { "Content-Type": "application/problem+json" } },
  );

interface Call {
  method: string;
  /** Path and query, decoded. */
  path: string;
  body: any;
  authorization: string | null;
  signal: AbortSignal;
}

/** Scripted fetch: each request is answered by `route(method, path, body)`; calls are kept. */
function serve(route: (method: string, path: string, body: any, request: Request) => Response | Promise<Response>) {
  const calls: Call[] = [];
  vi.stubGlobal("fetch", async (request: Request) => {
    const url = new URL(request.url);
    const text = await request.clone().text();
    const call = {
      method: request.method,
      path: decodeURIComponent(url.pathname + url.search),
      body: text ? JSON.parse(text) : undefined,
      authorization: request.headers.get("Authorization"),
      signal: request.signal,
    };
    calls.push(call);
    return route(call.method, call.path, call.body, request);
  });
  return calls;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("DeviceApi.uploadMany", () => {
  it("a lone receipt goes by the single route (DGII's verdict on the ticket); a backlog in one batch request", async () => {
    const calls = serve((_m, path, body) =>
      path.endsWith("/batch")
        ? json(200, {
            results: body.receipts.map((_: unknown, i: number) => ({
              encf: entry(i + 1).encf,
              status: 200,
              replayed: false,
              answer: answer(entry(i + 1).encf),
            })),
          })
        : json(200, answer(body ? entry(1).encf : "", "Aceptado")),
    );
    const api = new DeviceApi(BASE, "dvt_x");
    expect(await api.uploadMany([entry(1)])).toEqual([
      { kind: "answer", answer: expect.objectContaining({ estado: "Aceptado" }) },
    ]);
    const results = await api.uploadMany([entry(1), entry(2), entry(3)]);
    expect(calls.map((c) => c.path)).toEqual(["/devices/receipts", "/devices/receipts/batch"]);
    expect(calls[1]!.body.receipts.map((r: { xml: string }) => r.xml)).toEqual(
      [1, 2, 3].map((n) => entry(n).signedXml),
    );
    expect(results.map((r) => r.kind)).toEqual(["answer", "answer", "answer"]);
  });

  it("reads each receipt's result as the single upload's answer: 200 an answer, 4xx a refusal with its codes, 5xx a retry", async () => {
    serve(() =>
      json(200, {
        results: [
          { encf: entry(1).encf, status: 200, replayed: true, answer: answer(entry(1).encf, "Aceptado") },
          {
            encf: entry(2).encf,
            status: 422,
            replayed: false,
            problem: {
              code: "unprocessable",
              detail: "bad signature",
              errors: [{ path: "/receipts/1/xml", code: "signature_digest_mismatch", message: "digest" }],
            },
          },
          {
            encf: entry(3).encf,
            status: 409,
            replayed: false,
            problem: {
              code: "conflict",
              detail: "used",
              errors: [{ path: "/receipts/2/xml", code: "encf_already_used", message: "used" }],
            },
          },
          {
            encf: entry(4).encf,
            status: 500,
            replayed: false,
            problem: { code: "internal_error", detail: "Not recorded. Send this receipt again.", errors: [] },
          },
        ],
      }),
    );
    const results = await new DeviceApi(BASE, "dvt_x").uploadMany([1, 2, 3, 4].map(entry));
    expect(results).toEqual([
      { kind: "answer", answer: expect.objectContaining({ encf: entry(1).encf, estado: "Aceptado" }) },
      {
        kind: "refused",
        status: 422,
        detail: "bad signature",
        errors: [{ code: "signature_digest_mismatch", message: "digest" }],
      },
      { kind: "refused", status: 409, detail: "used", errors: [{ code: "encf_already_used", message: "used" }] },
      { kind: "retry", reason: "Not recorded. Send this receipt again." },
    ]);
  });

  it.each([
    ["the network fails", () => Promise.reject(new TypeError("Failed to fetch")), "retry"],
    ["the server fails", () => problem(503, "internal_error"), "retry"],
    [
      "a proxy answers with its own page",
      () => new Response("<h1>Bad gateway</h1>", { status: 502, headers: { "Content-Type": "text/html" } }),
      "retry",
    ],
    ["the device was revoked", () => problem(401, "unauthorized", { deviceRevoked: true }), "revoked"],
    ["the token is refused (not revoked)", () => problem(401, "unauthorized"), "retry"],
    ["the request is refused as a whole", () => problem(400, "validation_failed"), "retry"],
  ] as const)("when %s, the whole batch waits (no receipt is refused for it)", async (_label, respond, kind) => {
    serve(respond);
    expect((await new DeviceApi(BASE, "dvt_x").uploadMany([entry(1), entry(2)])).map((r) => r.kind)).toEqual([kind]);
  });

  it("a server from before batches (404) is sent the receipts one by one", async () => {
    const calls = serve((_m, path, body) =>
      path.endsWith("/batch")
        ? problem(404, "not_found")
        : json(200, answer(/<eNCF>(E\d{12})/.exec(body.xml)![1]!, "Aceptado")),
    );
    const results = await new DeviceApi(BASE, "dvt_x").uploadMany([entry(1), entry(2)]);
    expect(calls.map((c) => c.path)).toEqual(["/devices/receipts/batch", "/devices/receipts", "/devices/receipts"]);
    expect(results.map((r) => (r.kind === "answer" ? r.answer.encf : r.kind))).toEqual([entry(1).encf, entry(2).encf]);
  });
});

describe("DeviceApi.receiptStates", () => {
  it("asks about many receipts in one request", async () => {
    const calls = serve(() => json(200, { receipts: [answer(entry(2).encf, "Aceptado")] }));
    expect(await new DeviceApi(BASE, "dvt_x").receiptStates([entry(1).encf, entry(2).encf])).toEqual([
      expect.objectContaining({ encf: entry(2).encf }),
    ]);
    expect(calls.map((c) => c.path)).toEqual([`/devices/receipts?encf=${entry(1).encf},${entry(2).encf}`]);
  });

  it("a server without the list query is asked one by one; unknown receipts are left out", async () => {
    const calls = serve((_m, path) =>
      path.includes("?")
        ? problem(404, "not_found")
        : path.endsWith(entry(1).encf)
          ? problem(404, "not_found")
          : json(200, answer(entry(2).encf, "Aceptado")),
    );
    expect(await new DeviceApi(BASE, "dvt_x").receiptStates([entry(1).encf, entry(2).encf])).toEqual([
      expect.objectContaining({ encf: entry(2).encf }),
    ]);
    expect(calls).toHaveLength(3);
  });
});

describe("DeviceApi.upload", () => {
  it("classifies one upload: the answer, a refusal with the problem's status, detail and codes, revoked, or a retry", async () => {
    const answers: Record<string, () => Response | Promise<Response>> = {
      accepted: () => json(200, answer(entry(1).encf, "Aceptado")),
      refused: () =>
        problem(422, "unprocessable", {
          detail: "bad signature",
          errors: [{ path: "/xml", code: "signature_digest_mismatch", message: "digest" }],
        }),
      used: () =>
        problem(409, "conflict", {
          detail: "used",
          errors: [{ path: "/xml", code: "encf_already_used", message: "used" }],
        }),
      revoked: () => problem(401, "unauthorized", { deviceRevoked: true }),
      busy: () => problem(429, "too_many_requests", { detail: "slow down" }),
      down: () => problem(500, "internal_error", { detail: "Not recorded." }),
      offline: () => Promise.reject(new TypeError("Failed to fetch")),
    };
    const results: Record<string, unknown> = {};
    for (const [name, respond] of Object.entries(answers)) {
      serve(respond);
      results[name] = await new DeviceApi(BASE, "dvt_x").upload(entry(1));
    }
    expect(results).toEqual({
      accepted: { kind: "answer", answer: expect.objectContaining({ encf: entry(1).encf, estado: "Aceptado" }) },
      refused: {
        kind: "refused",
        status: 422,
        detail: "bad signature",
        errors: [{ code: "signature_digest_mismatch", message: "digest" }],
      },
      used: { kind: "refused", status: 409, detail: "used", errors: [{ code: "encf_already_used", message: "used" }] },
      revoked: { kind: "revoked" },
      busy: { kind: "retry", reason: "slow down" },
      down: { kind: "retry", reason: "Not recorded." },
      offline: { kind: "retry", reason: "Failed to fetch" },
    });
  });

  it("sends the device token as the bearer; pairing goes without one", async () => {
    const calls = serve((_m, path) =>
      path === "/devices/pair" ? json(200, { token: "dvt_new" }) : json(200, answer(entry(1).encf, "Aceptado")),
    );
    await new DeviceApi(BASE, "dvt_x").upload(entry(1));
    await new DeviceApi(BASE).pair("ABCD-1234");
    expect(calls.map((c) => [c.method, c.path, c.authorization, c.body])).toEqual([
      ["POST", "/devices/receipts", "Bearer dvt_x", { xml: entry(1).signedXml }],
      ["POST", "/devices/pair", null, { pairingCode: "ABCD-1234" }],
    ]);
  });

  it("gives up on a server that does not answer within the timeout: the upload waits for a later round", async () => {
    const calls = serve(
      (_m, _p, _b, request) =>
        new Promise<Response>((_resolve, reject) => {
          request.signal.addEventListener("abort", () => reject(request.signal.reason));
        }),
    );
    const started = Date.now();
    const result = await new DeviceApi(BASE, "dvt_x", 200).upload(entry(1));
    expect(result).toMatchObject({ kind: "retry", reason: expect.stringMatching(/time/i) });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(calls[0]!.signal.aborted).toBe(true);
    await expect(new DeviceApi(BASE, "dvt_x", 200).me()).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("DeviceApi reads", () => {
  it("a problem answer is thrown as ProblemError (status, code, the whole body); another error answer as UnexpectedAnswer", async () => {
    serve(() => problem(401, "unauthorized", { deviceRevoked: true }));
    const revoked = await new DeviceApi(BASE, "dvt_x").me().catch((e: unknown) => e);
    expect(revoked).toBeInstanceOf(ProblemError);
    expect(revoked).toMatchObject({ status: 401, code: "unauthorized", body: { deviceRevoked: true } });

    serve(() => new Response("<h1>Bad gateway</h1>", { status: 502, headers: { "Content-Type": "text/html" } }));
    const proxied = await new DeviceApi(BASE, "dvt_x").me().catch((e: unknown) => e);
    expect(proxied).toBeInstanceOf(UnexpectedAnswer);
    expect(proxied).toMatchObject({ status: 502 });
  });

  it("a taxpayer DGII's registry does not have is null; a missing route is an error", async () => {
    const calls = serve((_m, path) =>
      path.endsWith("/131880681")
        ? json(200, { rnc: "131880681", legalName: "X SRL" })
        : path.endsWith("/101010101")
          ? problem(404, "taxpayer_not_found")
          : problem(404, "not_found"),
    );
    const api = new DeviceApi(BASE, "dvt_x");
    expect(await api.taxpayer("131880681")).toMatchObject({ legalName: "X SRL" });
    expect(await api.taxpayer("101010101")).toBeNull();
    await expect(api.taxpayer("40200000001")).rejects.toMatchObject({ status: 404, code: "not_found" });
    expect(calls.map((c) => c.path)).toEqual([
      "/devices/contribuyentes/131880681",
      "/devices/contribuyentes/101010101",
      "/devices/contribuyentes/40200000001",
    ]);
  });

  it("the catalogue, a lease and a shift go to their routes with their parameters", async () => {
    const calls = serve((method) => json(method === "POST" ? 201 : 200, {}));
    const api = new DeviceApi(BASE, "dvt_x");
    await api.catalog(0);
    await api.catalog(42, 500);
    await api.lease("32", 200);
    await api.putShift("shift 1", {
      cashierId: "c1",
      cashierName: "Ana",
      openedAt: "2026-11-25T12:00:00.000Z",
      openingFloat: "100.00",
    });
    expect(calls.map((c) => [c.method, c.path, c.body])).toEqual([
      ["GET", "/devices/catalog?since=0", undefined],
      ["GET", "/devices/catalog?since=42&limit=500", undefined],
      ["POST", "/devices/leases", { tipoeCF: "32", size: 200 }],
      [
        "PUT",
        "/devices/shifts/shift 1",
        { cashierId: "c1", cashierName: "Ana", openedAt: "2026-11-25T12:00:00.000Z", openingFloat: "100.00" },
      ],
    ]);
  });
});
