// Bench entry injected into the POS page (same origin as the worker): the device's own issuing and
// sync code, timed in Chromium. Used by bench/pos.bench.ts.
import { formatMoney } from "@ecf/shared/money";
import { DeviceApi } from "../../src/api.ts";
import { cartTotals } from "../../src/sale/document.ts";
import { PosDatabase, type Product } from "../../src/db.ts";
import { addLease } from "../../src/leases.ts";
import { issueReceipt } from "../../src/sale/issue.ts";
import { pairDevice, type Session } from "../../src/session.ts";
import { signingKey } from "../../src/signing/keystore.ts";
import { syncOutbox } from "../../src/sync/outbox.ts";
import { refreshInProcess } from "../../src/sync/refresh.ts";

let db: PosDatabase;
let session: Session;

const products: Product[] = [
  { code: "1", name: "Café molido 1 lb", price: "350.00", itbis: "18", unit: "43", kind: "1" },
  { code: "2", name: "Arroz selecto 5 lb", price: "210.50", itbis: "E", unit: "43", kind: "1" },
  { code: "3", name: "Yogur natural", price: "95.25", itbis: "16", unit: "43", kind: "1" },
];

async function setup(pairingCode: string, receipts: number): Promise<void> {
  db = new PosDatabase(`bench-${crypto.randomUUID()}`);
  session = await pairDevice(db, pairingCode);
  const api = new DeviceApi("", session.token);
  for (let have = 200; have < receipts; have += 1000) await addLease(db, await api.lease("32", 1000));
}

/** Issues `n` receipts offline (number, complete, serialize, sign, record); ms per receipt. */
async function issueMany(n: number): Promise<{ issueMs: number[]; rawSignMs: number[] }> {
  const issueMs: number[] = [];
  for (let i = 0; i < n; i++) {
    const lines = products.map((product, j) => ({
      product,
      quantity: String(1 + ((i + j) % 3)),
      discountPercent: j === 0 ? "5" : "",
    }));
    const t0 = performance.now();
    await issueReceipt(db, {
      tipoeCF: "32",
      emisor: {
        rnc: session.company.registryNumber,
        legalName: session.company.name,
        address: session.company.address,
      },
      lines,
      payment: { method: "tarjeta", parts: [{ method: "tarjeta", amount: formatMoney(cartTotals(lines).total) }] },
      environment: session.company.dgiiServer,
      online: false,
    }).catch((e) => {
      throw new Error(`receipt ${i}: ${e instanceof Error ? e.message : String(e)}`);
    });
    issueMs.push(performance.now() - t0);
  }
  // The reference: the bare RSA-2048 signature of a SignedInfo-sized message with the same key.
  const key = (await signingKey(db))!.key;
  const message = new Uint8Array(600).fill(65);
  const rawSignMs: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, key, message);
    rawSignMs.push(performance.now() - t0);
  }
  return { issueMs, rawSignMs };
}

/** Uploads the whole queue as the sync does; wall time and the server round trip as reference. */
async function syncAll(): Promise<{ ms: number; sent: number; rejected: number; requests: number; pingMs: number }> {
  const api = new DeviceApi("", session.token);
  let requests = 0;
  const t0 = performance.now();
  const report = await syncOutbox(db, (batch) => (requests++, api.uploadMany(batch)));
  const ms = performance.now() - t0;
  const p0 = performance.now();
  for (let i = 0; i < 20; i++) await api.me();
  return { ms, sent: report.sent, rejected: report.rejected, requests, pingMs: (performance.now() - p0) / 20 };
}

/**
 * After the sync: the server sends the receipts to DGII in the background, and the till asks for
 * their state with the batch state query, as its sync rounds do. Waits until every receipt has
 * DGII's verdict on the till, or `windowMs`; says how many did and how long it took.
 */
async function settleAll(
  windowMs: number,
): Promise<{ ms: number; judged: number; rejected: number; unsettled: number; queries: number }> {
  const api = new DeviceApi("", session.token);
  let queries = 0;
  const t0 = performance.now();
  let unsettled = Infinity;
  while (unsettled > 0 && performance.now() - t0 < windowMs) {
    ({ unsettled } = await refreshInProcess(db, (encfs) => (queries++, api.receiptStates(encfs))));
    if (unsettled > 0) await new Promise((r) => setTimeout(r, 500));
  }
  const sales = await db.sales.toArray();
  const judged = sales.filter(
    (s) => s.estado === "Aceptado" || s.estado === "Aceptado Condicional" || s.estado === "Rechazado",
  ).length;
  return {
    ms: performance.now() - t0,
    judged,
    rejected: sales.filter((s) => s.estado === "Rechazado").length,
    unsettled,
    queries,
  };
}

Object.assign(globalThis, { posBench: { setup, issueMany, syncAll, settleAll } });
