// The device's HTTP client against a scripted fetch: which route a batch takes, how each receipt's
// result in a batch answer is read (as the single upload's answer would be), and the fallbacks
// for a server from before batches.
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeviceApi } from "../src/api.ts";
import type { OutboxEntry } from "../src/db.ts";

const entry = (n: number): OutboxEntry => ({
  seq: n,
  saleId: `s${n}`,
  encf: `E32${String(n).padStart(10, "0")}`,
  signedXml: `<ECF><eNCF>E32${String(n).padStart(10, "0")}</eNCF></ECF>`,
  state: "pending",
});
const answer = (encf: string, estado = "En Proceso") => ({ encf, estado, mensajes: [], codigo: "3", trackId: null });
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/** Scripted fetch: each call is answered by `route(method, path, body)`; calls are kept. */
function serve(route: (method: string, path: string, body: any) => Response | Promise<Response>) {
  const calls: { method: string; path: string; body: any }[] = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    const call = { method: init.method ?? "GET", path: url, body: init.body ? JSON.parse(String(init.body)) : undefined };
    calls.push(call);
    return route(call.method, call.path, call.body);
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
        ? json(200, { results: body.receipts.map((_: unknown, i: number) => ({ encf: entry(i + 1).encf, status: 200, replayed: false, answer: answer(entry(i + 1).encf) })) })
        : json(200, answer(body ? entry(1).encf : "", "Aceptado")),
    );
    const api = new DeviceApi("", "dvt_x");
    expect(await api.uploadMany([entry(1)])).toEqual([{ kind: "answer", answer: expect.objectContaining({ estado: "Aceptado" }) }]);
    const results = await api.uploadMany([entry(1), entry(2), entry(3)]);
    expect(calls.map((c) => c.path)).toEqual(["/devices/receipts", "/devices/receipts/batch"]);
    expect(calls[1]!.body.receipts.map((r: { xml: string }) => r.xml)).toEqual([1, 2, 3].map((n) => entry(n).signedXml));
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
            problem: { code: "unprocessable", detail: "bad signature", errors: [{ path: "/receipts/1/xml", code: "signature_digest_mismatch", message: "digest" }] },
          },
          {
            encf: entry(3).encf,
            status: 409,
            replayed: false,
            problem: { code: "conflict", detail: "used", errors: [{ path: "/receipts/2/xml", code: "encf_already_used", message: "used" }] },
          },
          { encf: entry(4).encf, status: 500, replayed: false, problem: { code: "internal_error", detail: "Not recorded. Send this receipt again.", errors: [] } },
        ],
      }),
    );
    const results = await new DeviceApi("", "dvt_x").uploadMany([1, 2, 3, 4].map(entry));
    expect(results).toEqual([
      { kind: "answer", answer: expect.objectContaining({ encf: entry(1).encf, estado: "Aceptado" }) },
      { kind: "refused", status: 422, detail: "bad signature", errors: [{ code: "signature_digest_mismatch", message: "digest" }] },
      { kind: "refused", status: 409, detail: "used", errors: [{ code: "encf_already_used", message: "used" }] },
      { kind: "retry", reason: "Not recorded. Send this receipt again." },
    ]);
  });

  it.each([
    ["the network fails", () => Promise.reject(new TypeError("Failed to fetch")), "retry"],
    ["the server fails", () => json(503, { code: "internal_error", detail: "down" }), "retry"],
    ["the device was revoked", () => json(401, { code: "unauthorized", deviceRevoked: true }), "revoked"],
    ["the request is refused as a whole", () => json(400, { code: "validation_failed", detail: "schema" }), "retry"],
  ] as const)("when %s, the whole batch waits (no receipt is refused for it)", async (_label, respond, kind) => {
    serve(respond);
    expect((await new DeviceApi("", "dvt_x").uploadMany([entry(1), entry(2)])).map((r) => r.kind)).toEqual([kind]);
  });

  it("a server from before batches (404) is sent the receipts one by one", async () => {
    const calls = serve((_m, path, body) => (path.endsWith("/batch") ? json(404, { code: "not_found" }) : json(200, answer(/<eNCF>(E\d{12})/.exec(body.xml)![1]!, "Aceptado"))));
    const results = await new DeviceApi("", "dvt_x").uploadMany([entry(1), entry(2)]);
    expect(calls.map((c) => c.path)).toEqual(["/devices/receipts/batch", "/devices/receipts", "/devices/receipts"]);
    expect(results.map((r) => (r.kind === "answer" ? r.answer.encf : r.kind))).toEqual([entry(1).encf, entry(2).encf]);
  });
});

describe("DeviceApi.receiptStates", () => {
  it("asks about many receipts in one request", async () => {
    const calls = serve(() => json(200, { receipts: [answer(entry(2).encf, "Aceptado")] }));
    expect(await new DeviceApi("", "dvt_x").receiptStates([entry(1).encf, entry(2).encf])).toEqual([expect.objectContaining({ encf: entry(2).encf })]);
    expect(calls.map((c) => c.path)).toEqual([`/devices/receipts?encf=${entry(1).encf},${entry(2).encf}`]);
  });

  it("a server without the list query is asked one by one; unknown receipts are left out", async () => {
    const calls = serve((_m, path) =>
      path.includes("?") ? json(404, { code: "not_found" }) : path.endsWith(entry(1).encf) ? json(404, { code: "not_found" }) : json(200, answer(entry(2).encf, "Aceptado")),
    );
    expect(await new DeviceApi("", "dvt_x").receiptStates([entry(1).encf, entry(2).encf])).toEqual([expect.objectContaining({ encf: entry(2).encf })]);
    expect(calls).toHaveLength(3);
  });
});
