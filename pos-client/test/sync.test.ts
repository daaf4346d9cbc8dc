import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase, type OutboxEntry } from "../src/db.ts";
import { batches, syncOutbox } from "../src/sync/outbox.ts";
import { refreshInProcess, STATE_QUERY_MAX } from "../src/sync/refresh.ts";
import { oneAtATime, type ServerAnswer, type UploadBatch, type UploadResult } from "../src/uploads.ts";

let db: PosDatabase;
afterEach(async () => {
  await db.delete();
});

const encfOf = (i: number) => `E32${String(i).padStart(10, "0")}`;

async function queue(n: number, deviceOf: (i: number) => string | undefined = () => undefined) {
  db = new PosDatabase(`pos-${crypto.randomUUID()}`);
  for (let i = 1; i <= n; i++) {
    const encf = encfOf(i);
    const deviceId = deviceOf(i);
    await db.recordSignedSale(
      { id: `s${i}`, createdAt: "t", encf, document: {}, estado: "Contingencia" },
      { saleId: `s${i}`, encf, signedXml: `<ECF>${i}</ECF>`, ...(deviceId ? { deviceId } : {}) },
    );
  }
}

type Step = "offline" | "lost" | "reject" | "refuse" | "unrecorded";

/**
 * A server that behaves like POST /devices/receipts/batch: it keeps the first answer per e-NCF and
 * replays it; `plan` scripts what happens at the n-th receipt it is sent (1-based, counting every
 * receipt of every request): "offline" fails that whole request before anything is recorded,
 * "lost" records the whole request but loses the response, "unrecorded" leaves that receipt and
 * the rest of its request unrecorded (a failure on the server's side, answered 500 per receipt).
 */
function server(plan: Record<number, Step> = {}) {
  const received = new Map<string, ServerAnswer>();
  const requests: string[][] = [];
  let sent = 0;
  const uploadBatch: UploadBatch = async (entries) => {
    requests.push(entries.map((e) => e.encf));
    const steps = entries.map(() => plan[++sent]);
    if (steps.includes("offline")) return [{ kind: "retry", reason: "Failed to fetch" }];
    const results: UploadResult[] = [];
    let unrecorded = false;
    for (const [i, entry] of entries.entries()) {
      const step = steps[i];
      unrecorded ||= step === "unrecorded";
      if (unrecorded) {
        results.push({ kind: "retry", reason: "Not recorded. Send this receipt again." });
        continue;
      }
      if (step === "refuse") {
        results.push({
          kind: "refused",
          status: 422,
          detail: "no",
          errors: [{ code: "encf_not_leased", message: "not leased" }],
        });
        continue;
      }
      if (!received.has(entry.encf)) {
        received.set(entry.encf, {
          estado: step === "reject" ? "Rechazado" : "En Proceso",
          encf: entry.encf,
          mensajes: step === "reject" ? [{ codigo: "145", valor: "El RNC del comprador no es válido" }] : [],
        });
      }
      results.push({ kind: "answer", answer: received.get(entry.encf)! });
    }
    if (steps.includes("lost")) throw new TypeError("network error: response lost");
    return results;
  };
  return { uploadBatch, received, requests, calls: () => requests.flat() };
}

const states = async () => (await db.outbox.orderBy("seq").toArray()).map((e) => e.state);
const estados = async () =>
  (await db.sales.toArray()).sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true })).map((s) => s.estado);

describe("sync state machine (batches)", () => {
  it("uploads in signing order, many receipts per request, and marks each by its own answer", async () => {
    await queue(5);
    const s = server();
    const progress: string[] = [];
    const report = await syncOutbox(db, s.uploadBatch, (p) => progress.push(`${p.done}/${p.total}`), {
      receipts: 2,
      bytes: 1_000_000,
    });
    expect(s.requests).toEqual([[encfOf(1), encfOf(2)], [encfOf(3), encfOf(4)], [encfOf(5)]]);
    expect(report).toMatchObject({ sent: 5, rejected: 0, pending: 0, unsettled: 5 });
    expect(await states()).toEqual(["sent", "sent", "sent", "sent", "sent"]);
    expect(await estados()).toEqual(["En Proceso", "En Proceso", "En Proceso", "En Proceso", "En Proceso"]);
    expect(progress).toEqual(["0/5", "0/5", "2/5", "4/5", "5/5"]);
  });

  it("500 queued receipts go up in 5 requests with the default limits", async () => {
    await queue(500);
    const s = server();
    const report = await syncOutbox(db, s.uploadBatch);
    expect(s.requests.map((r) => r.length)).toEqual([100, 100, 100, 100, 100]);
    expect(s.calls()).toEqual(Array.from({ length: 500 }, (_, i) => encfOf(i + 1)));
    expect(report).toMatchObject({ sent: 500, pending: 0 });
  });

  it("a lost response: the batch goes again and gets the same answers; one receipt each on the server", async () => {
    await queue(3);
    const s = server({ 2: "lost" });
    const first = await syncOutbox(db, s.uploadBatch);
    expect(first.stoppedBy).toBe("retry");
    expect(await states()).toEqual(["pending", "pending", "pending"]);
    expect(await estados()).toEqual(["Contingencia", "Contingencia", "Contingencia"]);
    await syncOutbox(db, s.uploadBatch);
    expect(s.requests).toEqual([
      [encfOf(1), encfOf(2), encfOf(3)],
      [encfOf(1), encfOf(2), encfOf(3)],
    ]);
    expect(s.received.size).toBe(3);
    expect(await states()).toEqual(["sent", "sent", "sent"]);
  });

  it("offline stops the run without skipping ahead, so order is kept", async () => {
    await queue(5);
    const s = server({ 3: "offline" });
    const report = await syncOutbox(db, s.uploadBatch, undefined, { receipts: 2, bytes: 1_000_000 });
    expect(report).toMatchObject({ sent: 2, pending: 3, stoppedBy: "retry" });
    expect(await states()).toEqual(["sent", "sent", "pending", "pending", "pending"]);
    expect(s.requests).toEqual([
      [encfOf(1), encfOf(2)],
      [encfOf(3), encfOf(4)],
    ]);
    // The next run starts where this one stopped.
    await syncOutbox(db, s.uploadBatch, undefined, { receipts: 2, bytes: 1_000_000 });
    expect(s.requests.slice(2)).toEqual([[encfOf(3), encfOf(4)], [encfOf(5)]]);
  });

  it("a receipt the server could not record stops there: the ones before are done, it and the rest go again in order", async () => {
    await queue(5);
    const s = server({ 3: "unrecorded" });
    const report = await syncOutbox(db, s.uploadBatch);
    expect(report).toMatchObject({ sent: 2, pending: 3, stoppedBy: "retry" });
    expect(await states()).toEqual(["sent", "sent", "pending", "pending", "pending"]);
    expect((await db.outbox.get(3))?.lastError).toContain("Send this receipt again");
    await syncOutbox(db, s.uploadBatch);
    expect(s.requests[1]).toEqual([encfOf(3), encfOf(4), encfOf(5)]);
    expect(await states()).toEqual(["sent", "sent", "sent", "sent", "sent"]);
  });

  it.each([
    ["DGII's rejection", "reject", "145"],
    ["the server's refusal", "refuse", "encf_not_leased"],
  ] as const)(
    "%s of one receipt is terminal for it alone, kept with its reason, and never retried",
    async (_label, step, codigo) => {
      await queue(3);
      const s = server({ 2: step });
      const report = await syncOutbox(db, s.uploadBatch);
      expect(report).toMatchObject({ rejected: 1, sent: 2, pending: 0 });
      expect(await states()).toEqual(["sent", "rejected", "sent"]);
      const sale = await db.sales.get("s2");
      expect(sale?.estado).toBe("Rechazado");
      expect(sale?.mensajes?.[0]?.codigo).toBe(codigo);
      await syncOutbox(db, s.uploadBatch);
      expect(s.requests).toHaveLength(1);
    },
  );

  it("entries left 'sending' by a killed tab go again, and the server's dedupe keeps them single", async () => {
    await queue(2);
    const s = server();
    await s.uploadBatch(await db.outbox.toArray()); // the server got them, the tab died before marking them
    await db.outbox.toCollection().modify({ state: "sending" });
    await syncOutbox(db, s.uploadBatch);
    expect(await states()).toEqual(["sent", "sent"]);
    expect(s.received.size).toBe(2);
  });

  it("a revoked device stops syncing and keeps its entries", async () => {
    await queue(2);
    const report = await syncOutbox(db, async () => [{ kind: "revoked" }]);
    expect(report.stoppedBy).toBe("revoked");
    expect(await states()).toEqual(["pending", "pending"]);
  });

  it("a batch holds one pairing's receipts and stays within the size limit", async () => {
    await queue(6, (i) => (i <= 2 ? "dev_old" : "dev_a"));
    const entries = await db.outbox.orderBy("seq").toArray();
    expect(batches(entries).map((b) => b.map((e) => e.encf))).toEqual([
      [encfOf(1), encfOf(2)],
      [encfOf(3), encfOf(4), encfOf(5), encfOf(6)],
    ]);
    // `<ECF>n</ECF>` is 12 characters: two fit in 24.
    expect(batches(entries, { receipts: 100, bytes: 24 }).map((b) => b.length)).toEqual([2, 2, 2]);
    expect(batches(entries, { receipts: 3, bytes: 1_000 }).map((b) => b.length)).toEqual([2, 3, 1]);
  });

  it("a single-receipt upload used as a batch goes one by one and stops where one must wait", async () => {
    await queue(3);
    const calls: string[] = [];
    const single = async (entry: OutboxEntry): Promise<UploadResult> => {
      calls.push(entry.encf);
      return entry.encf === encfOf(2)
        ? { kind: "retry", reason: "timeout" }
        : { kind: "answer", answer: { estado: "Aceptado", encf: entry.encf, mensajes: [] } };
    };
    const report = await syncOutbox(db, oneAtATime(single));
    expect(calls).toEqual([encfOf(1), encfOf(2)]);
    expect(report).toMatchObject({ sent: 1, pending: 2, stoppedBy: "retry" });
    expect(await states()).toEqual(["sent", "pending", "pending"]);
  });
});

describe("refreshing receipts in process", () => {
  const answered =
    (estado: ServerAnswer["estado"]): UploadBatch =>
    async (entries) =>
      entries.map((e) => ({ kind: "answer", answer: { estado, encf: e.encf, mensajes: [] } }));

  it.each([
    ["En Proceso", "Aceptado", "sent"],
    ["En Proceso", "Rechazado", "rejected"],
    ["En Proceso", "En Proceso", "sent"],
    ["Contingencia", "Aceptado", "sent"],
  ] as const)("a receipt the server answered %s records DGII's later word %s", async (first, later, state) => {
    await queue(1);
    await syncOutbox(db, answered(first));
    const { changed, unsettled } = await refreshInProcess(db, async (encfs) =>
      encfs.map((encf) => ({
        estado: later,
        encf,
        mensajes: later === "Rechazado" ? [{ codigo: "2", valor: "Firma inválida" }] : [],
      })),
    );
    expect(changed).toBe(first === later ? 0 : 1);
    expect(unsettled).toBe(later === "En Proceso" ? 1 : 0);
    expect((await db.sales.get("s1"))?.estado).toBe(later);
    expect(await states()).toEqual([state]);
  });

  it("a local contingency receipt not yet uploaded is left to the upload", async () => {
    await queue(1);
    const asked: string[][] = [];
    expect(await refreshInProcess(db, async (encfs) => (asked.push(encfs), []))).toEqual({ changed: 0, unsettled: 0 });
    expect(asked).toEqual([]);
  });

  it("a synced backlog is asked about many at a time: 250 receipts, 3 requests", async () => {
    await queue(250);
    await syncOutbox(db, answered("En Proceso"));
    const asked: string[][] = [];
    const result = await refreshInProcess(
      db,
      async (encfs) => (asked.push(encfs), encfs.map((encf) => ({ estado: "Aceptado" as const, encf, mensajes: [] }))),
    );
    expect(asked.map((a) => a.length)).toEqual([STATE_QUERY_MAX, STATE_QUERY_MAX, 50]);
    expect(asked.flat()).toEqual(Array.from({ length: 250 }, (_, i) => encfOf(i + 1)));
    expect(result).toEqual({ changed: 250, unsettled: 0 });
    expect(new Set(await estados())).toEqual(new Set(["Aceptado"]));
  });

  it("a receipt the server does not know is left as it is", async () => {
    await queue(2);
    await syncOutbox(db, answered("En Proceso"));
    const result = await refreshInProcess(db, async () => [{ estado: "Aceptado", encf: encfOf(2), mensajes: [] }]);
    expect(result).toEqual({ changed: 1, unsettled: 1 });
    expect(await estados()).toEqual(["En Proceso", "Aceptado"]);
  });

  it("rotates: receipts that stay in process never keep later ones from being asked about", async () => {
    await queue(25);
    await db.outbox.toCollection().modify({ state: "sent" });
    await db.sales.toCollection().modify({ estado: "En Proceso" });
    // DGII keeps the first 20 in process; the last 5 are settled.
    const asked: string[] = [];
    const state = async (encfs: string[]): Promise<ServerAnswer[]> => {
      asked.push(...encfs);
      return encfs.map((encf) => ({
        estado: Number(encf.slice(3)) <= 20 ? "En Proceso" : "Aceptado",
        encf,
        mensajes: [],
      }));
    };
    expect(await refreshInProcess(db, state, 20)).toEqual({ changed: 0, unsettled: 25 });
    expect(asked).toHaveLength(20);
    expect(await refreshInProcess(db, state, 20)).toEqual({ changed: 5, unsettled: 20 });
    expect(asked.slice(20, 25)).toEqual([encfOf(21), encfOf(22), encfOf(23), encfOf(24), encfOf(25)]);
    expect((await db.sales.get("s25"))?.estado).toBe("Aceptado");
    // Then round again from the start.
    await refreshInProcess(db, state, 20);
    expect(asked.at(25)).toBe(encfOf(1));
  });
});
