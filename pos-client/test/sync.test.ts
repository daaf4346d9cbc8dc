import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase, type OutboxEntry } from "../src/db.ts";
import { syncOutbox, type ServerAnswer, type UploadResult } from "../src/sync/outbox.ts";
import { refreshInProcess } from "../src/sync/refresh.ts";

let db: PosDatabase;
afterEach(async () => {
  await db.delete();
});

async function queue(n: number) {
  db = new PosDatabase(`pos-${crypto.randomUUID()}`);
  for (let i = 1; i <= n; i++) {
    const encf = `E32${String(i).padStart(10, "0")}`;
    await db.recordSignedSale({ id: `s${i}`, createdAt: "t", encf, document: {}, estado: "Contingencia" }, { saleId: `s${i}`, encf, signedXml: `<ECF>${i}</ECF>` });
  }
}

/**
 * A server that behaves like POST /devices/receipts: it keeps the first answer per e-NCF and
 * replays it; `plan` scripts failures per call (lost response: processed, but the answer is lost).
 */
function server(plan: Record<number, "offline" | "lost" | "reject" | "refuse"> = {}) {
  const received = new Map<string, ServerAnswer>();
  const calls: string[] = [];
  const upload = async (entry: OutboxEntry): Promise<UploadResult> => {
    const call = calls.push(entry.encf);
    const step = plan[call];
    if (step === "offline") return { kind: "retry", reason: "Failed to fetch" };
    if (step === "refuse") return { kind: "refused", status: 422, detail: "no", errors: [{ code: "encf_not_leased", message: "not leased" }] };
    if (!received.has(entry.encf)) {
      received.set(entry.encf, {
        estado: step === "reject" ? "Rechazado" : "Aceptado",
        encf: entry.encf,
        mensajes: step === "reject" ? [{ codigo: "145", valor: "El RNC del comprador no es válido" }] : [],
      });
    }
    if (step === "lost") throw new TypeError("network error: response lost");
    return { kind: "answer", answer: received.get(entry.encf)! };
  };
  return { upload, received, calls };
}

const states = async () => (await db.outbox.orderBy("seq").toArray()).map((e) => e.state);

describe("sync state machine", () => {
  it("uploads in signing order and marks each by the server's answer", async () => {
    await queue(3);
    const s = server();
    const progress: string[] = [];
    const report = await syncOutbox(db, s.upload, (p) => progress.push(`${p.done}/${p.total}`));
    expect(s.calls).toEqual(["E320000000001", "E320000000002", "E320000000003"]);
    expect(report).toMatchObject({ sent: 3, rejected: 0, pending: 0 });
    expect(await states()).toEqual(["sent", "sent", "sent"]);
    expect((await db.sales.get("s2"))?.estado).toBe("Aceptado");
    expect(progress.at(-1)).toBe("3/3");
  });

  it("a lost response is retried and gets the same answer: one receipt on the server", async () => {
    await queue(2);
    const s = server({ 1: "lost" });
    const first = await syncOutbox(db, s.upload);
    expect(first.stoppedBy).toBe("retry");
    expect(await states()).toEqual(["pending", "pending"]);
    expect((await db.sales.get("s1"))?.estado).toBe("Contingencia");
    await syncOutbox(db, s.upload);
    expect(s.calls).toEqual(["E320000000001", "E320000000001", "E320000000002"]);
    expect(s.received.size).toBe(2);
    expect(await states()).toEqual(["sent", "sent"]);
  });

  it("offline stops the run without skipping ahead, so order is kept", async () => {
    await queue(3);
    const s = server({ 2: "offline" });
    await syncOutbox(db, s.upload);
    expect(await states()).toEqual(["sent", "pending", "pending"]);
    expect(s.calls).toEqual(["E320000000001", "E320000000002"]);
  });

  it.each([
    ["DGII's rejection", "reject", "145"],
    ["the server's refusal", "refuse", "encf_not_leased"],
  ] as const)("%s is terminal, kept with its reason, and never retried", async (_label, step, codigo) => {
    await queue(2);
    const s = server({ 1: step });
    const report = await syncOutbox(db, s.upload);
    expect(report).toMatchObject({ rejected: 1, sent: 1 });
    expect(await states()).toEqual(["rejected", "sent"]);
    const sale = await db.sales.get("s1");
    expect(sale?.estado).toBe("Rechazado");
    expect(sale?.mensajes?.[0]?.codigo).toBe(codigo);
    await syncOutbox(db, s.upload);
    expect(s.calls.length).toBe(2);
  });

  it("an entry left 'sending' by a killed tab goes again, and the server's dedupe keeps it single", async () => {
    await queue(1);
    const s = server();
    await s.upload((await db.outbox.toArray())[0]!); // the server got it, the tab died before marking it
    await db.outbox.update(1, { state: "sending" });
    await syncOutbox(db, s.upload);
    expect(await states()).toEqual(["sent"]);
    expect(s.received.size).toBe(1);
  });

  it("a revoked device stops syncing and keeps its entries", async () => {
    await queue(2);
    const report = await syncOutbox(db, async () => ({ kind: "revoked" }));
    expect(report.stoppedBy).toBe("revoked");
    expect(await states()).toEqual(["pending", "pending"]);
  });
});

describe("refreshing receipts in process", () => {
  it.each([
    ["En Proceso", "Aceptado", "sent"],
    ["En Proceso", "Rechazado", "rejected"],
    ["En Proceso", "En Proceso", "sent"],
    ["Contingencia", "Aceptado", "sent"],
  ] as const)("a receipt the server answered %s records DGII's later word %s", async (first, later, state) => {
    await queue(1);
    await syncOutbox(db, async (e) => ({ kind: "answer", answer: { estado: first, encf: e.encf, mensajes: [] } }));
    const changed = await refreshInProcess(db, async (encf) => ({ estado: later, encf, mensajes: later === "Rechazado" ? [{ codigo: "2", valor: "Firma inválida" }] : [] }));
    expect(changed).toBe(first === later ? 0 : 1);
    expect((await db.sales.get("s1"))?.estado).toBe(later);
    expect(await states()).toEqual([state]);
  });

  it("a local contingency receipt not yet uploaded is left to the upload", async () => {
    await queue(1);
    const asked: string[] = [];
    expect(await refreshInProcess(db, async (encf) => (asked.push(encf), null))).toBe(0);
    expect(asked).toEqual([]);
  });

  it("rotates: receipts that stay in process never keep later ones from being asked about", async () => {
    await queue(25);
    await db.outbox.toCollection().modify({ state: "sent" });
    await db.sales.toCollection().modify({ estado: "En Proceso" });
    // DGII keeps the first 20 in process; the last 5 are settled.
    const asked: string[] = [];
    const state = async (encf: string): Promise<ServerAnswer> => {
      asked.push(encf);
      return { estado: Number(encf.slice(3)) <= 20 ? "En Proceso" : "Aceptado", encf, mensajes: [] };
    };
    expect(await refreshInProcess(db, state)).toBe(0);
    expect(asked).toHaveLength(20);
    expect(await refreshInProcess(db, state)).toBe(5);
    expect(asked.slice(20, 25)).toEqual(["E320000000021", "E320000000022", "E320000000023", "E320000000024", "E320000000025"]);
    expect((await db.sales.get("s25"))?.estado).toBe("Aceptado");
    // Then round again from the start.
    await refreshInProcess(db, state);
    expect(asked.at(25)).toBe("E320000000001");
  });
});
