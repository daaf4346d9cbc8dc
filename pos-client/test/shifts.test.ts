import "fake-indexeddb/auto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { ProblemError } from "@ecf/client";
import { PosDatabase, type Cashier, type Product, type Sale } from "../src/db.ts";
import { addLease } from "../src/leases.ts";
import { issueReceipt, SaleProblem } from "../src/sale/issue.ts";
import type { Payment } from "../src/sale/document.ts";
import { pinMatches } from "../src/shift/pin.ts";
import { closeShift, currentShift, openShift, ShiftProblem } from "../src/shift/shifts.ts";
import { syncShifts } from "../src/sync/shifts.ts";
import { cashRefunded, zReport } from "../src/shift/z-report.ts";
import { forgetSettledTokens, RETIRED_TOKENS } from "../src/session.ts";
import { installSigningKey } from "../src/signing/keystore.ts";

let identity: TestIdentity;
let db: PosDatabase;
beforeAll(async () => {
  identity = await createTestIdentity({ rnc: "131880681" });
});
afterEach(async () => {
  await db?.delete();
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

/** A cashier as the catalogue ships one: PBKDF2-SHA256 over the PIN's UTF-8 bytes, 256 bits. */
async function cashier(name: string, pin: string, over: Partial<Cashier> = {}): Promise<Cashier> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(pin), "PBKDF2", false, ["deriveBits"]);
  const hash = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 1000 }, key, 256),
  );
  return {
    id: `cashier-${name}`,
    name,
    active: true,
    version: 1,
    pin: { algorithm: "PBKDF2-SHA256", iterations: 1000, salt: b64(salt), hash: b64(hash) },
    ...over,
  };
}

const emisor = { rnc: "131880681", legalName: "DEMO COMERCIAL SRL", address: "Calle 1, Santo Domingo" };
const product = (price: string, over: Partial<Product> = {}): Product => ({
  code: price,
  name: `Artículo ${price}`,
  price,
  itbis: "18",
  unit: "43",
  kind: "1",
  ...over,
});
const cash = (amount: string): Payment => ({
  method: "efectivo",
  parts: [{ method: "efectivo", amount }],
  cashReceived: amount,
});

async function ready() {
  db = new PosDatabase(`pos-${crypto.randomUUID()}`);
  await installSigningKey(db, {
    pkcs8: b64(identity.pkcs8),
    certificate: b64(identity.certificateDer),
    certificateSerial: null,
  });
  for (const tipo of ["32", "31", "34"])
    await addLease(db, { tipoeCF: tipo, rangeFrom: 1001, rangeTo: 1200, expiresOn: "2099-12-31" });
}

const sell = (shiftId: string, price: string, payment: Payment | undefined, reference?: Sale) =>
  issueReceipt(db, {
    tipoeCF: reference ? "34" : "32",
    emisor,
    lines: [{ product: product(price, { priceIncludesItbis: true }), quantity: "1", discountPercent: "" }],
    ...(payment ? { payment } : {}),
    ...(reference
      ? {
          reference: {
            encf: reference.encf!,
            fechaEmision: (reference.document as { Encabezado: { Emisor: { FechaEmision: string } } }).Encabezado.Emisor
              .FechaEmision,
            montoTotal: reference.montoTotal!,
          },
        }
      : {}),
    environment: "testecf",
    online: false,
    shiftId,
  });

describe("cashier PIN, checked offline", () => {
  it("matches the PIN the hash was made from, and nothing else", async () => {
    const ana = await cashier("Ana", "4821");
    expect(await pinMatches(ana, "4821")).toBe(true);
    for (const wrong of ["4820", "48210", "", "abcd"]) expect(await pinMatches(ana, wrong)).toBe(false);
    expect(await pinMatches({ ...ana, active: false }, "4821")).toBe(false);
  });
});

describe("wrong PINs on the till", () => {
  it("after 3 wrong PINs the cashier waits 30 s, then twice as long after each further one; the right PIN clears it", async () => {
    await ready();
    const ana = await cashier("Ana", "482193");
    const luis = await cashier("Luis", "135791");
    const t0 = Date.parse("2026-11-27T12:00:00Z");
    const tryPin = (pin: string, at: number, who = ana) =>
      openShift(db, { cashier: who, pin, openingFloat: "0", now: new Date(at) });
    for (let i = 0; i < 2; i++) await expect(tryPin("000000", t0)).rejects.toThrow(/^PIN incorrecto\.$/);
    await expect(tryPin("000000", t0)).rejects.toThrow(/Espere 30 segundos/);
    // Even the right PIN waits, and a wait is not an attempt.
    await expect(tryPin("482193", t0 + 29_000)).rejects.toThrow(/Demasiados PIN incorrectos: espere 1 segundos/);
    // Another cashier is not held up by Ana's failures.
    const luisShift = await tryPin("135791", t0 + 1_000, luis);
    await closeShift(db, luisShift.id, "0", new Date(t0 + 2_000));
    expect(luisShift.cashierName).toBe("Luis");
    // A fourth wrong PIN after the wait: 60 s now.
    await expect(tryPin("000001", t0 + 30_000)).rejects.toThrow(/Espere 60 segundos/);
    await expect(tryPin("482193", t0 + 89_000)).rejects.toThrow(/Demasiados/);
    // The failures survive a reload of the till (IndexedDB), and the right PIN after the wait clears them.
    const reopened = new PosDatabase(db.name);
    expect((await reopened.setting<Record<string, { count: number }>>("pin-failures"))?.[ana.id]?.count).toBe(4);
    reopened.close();
    const shift = await tryPin("482193", t0 + 90_000);
    expect(shift.cashierName).toBe("Ana");
    expect((await db.setting<Record<string, unknown>>("pin-failures"))?.[ana.id]).toBeUndefined();
  });

  it("the delay doubles up to an hour", async () => {
    const { delayAfter } = await import("../src/shift/pin-attempts.ts");
    expect([0, 1, 2, 3, 4, 5, 10, 20].map(delayAfter)).toEqual([
      0, 0, 0, 30_000, 60_000, 120_000, 3_600_000, 3_600_000,
    ]);
  });
});

describe("a shift's life on the till", () => {
  it("opens with a float for the cashier with the right PIN, carries every sale and refund, and closes with the Z report", async () => {
    await ready();
    const ana = await cashier("Ana", "4821");
    await expect(openShift(db, { cashier: ana, pin: "1111", openingFloat: "1000" })).rejects.toThrow(ShiftProblem);
    await expect(openShift(db, { cashier: ana, pin: "4821", openingFloat: "mil" })).rejects.toThrow(/Fondo de caja/);
    const shift = await openShift(db, { cashier: ana, pin: "4821", openingFloat: "1000", deviceId: "dev_1" });
    expect(shift).toMatchObject({ state: "open", openingFloat: "1000.00", cashierName: "Ana", sync: "pending" });
    await expect(
      openShift(db, { cashier: await cashier("Luis", "2222"), pin: "2222", openingFloat: "0" }),
    ).rejects.toThrow(/Ana sigue abierto/);

    // 118.00 cash, 236.00 card, 59.00 mixed (20.00 card + 39.00 cash), then the cash sale refunded.
    const first = await sell(shift.id, "118.00", cash("118.00"));
    await sell(shift.id, "236.00", { method: "tarjeta", parts: [{ method: "tarjeta", amount: "236.00" }] });
    await sell(shift.id, "59.00", {
      method: "mixto",
      parts: [
        { method: "efectivo", amount: "39.00" },
        { method: "tarjeta", amount: "20.00" },
      ],
      cashReceived: "40.00",
    });
    const refund = await sell(shift.id, "118.00", undefined, first.sale);
    expect((await db.sales.where("shiftId").equals(shift.id).toArray()).map((s) => s.encf).sort()).toEqual(
      [first.sale.encf, refund.sale.encf, "E320000001002", "E320000001003"].sort(),
    );

    const closed = await closeShift(db, shift.id, "1035.50", new Date("2026-11-25T22:00:00Z"));
    expect(closed).toMatchObject({
      state: "closed",
      countedCash: "1035.50",
      closedAt: "2026-11-25T22:00:00.000Z",
      sync: "pending",
      revision: 2,
    });
    expect(closed.report).toEqual({
      receipts: [
        { tipoeCF: "32", count: 3, total: "413.00" },
        { tipoeCF: "34", count: 1, total: "118.00" },
      ],
      payments: [
        { method: "efectivo", count: 2, total: "157.00" },
        { method: "tarjeta", count: 2, total: "256.00" },
      ],
      salesCount: 3,
      // Prices include ITBIS at 18 %: 413.00 / 1.18 × 0.18 = 63.00.
      salesTotal: "413.00",
      itbisTotal: "63.00",
      refunds: { count: 1, total: "118.00", itbis: "18.00" },
      cashSales: "157.00",
      cashRefunds: "118.00",
      // 1000.00 + 157.00 − 118.00
      expectedCash: "1039.00",
      countedCash: "1035.50",
      difference: "-3.50",
    });
    expect(await currentShift(db)).toBeUndefined();
    await expect(sell(shift.id, "10.00", cash("10.00"))).rejects.toThrow(SaleProblem);
    await expect(closeShift(db, shift.id, "1000")).rejects.toThrow(/ya está cerrado/);
  });
});

describe("Z report arithmetic", () => {
  const sale = (encf: string, montoTotal: string, totalItbis: string, payment?: Payment, modifies?: string): Sale => ({
    id: encf,
    createdAt: "2026-11-25T12:00:00Z",
    encf,
    montoTotal,
    document: { Encabezado: { Totales: { MontoTotal: montoTotal, TotalITBIS: totalItbis } } },
    ...(payment ? { payment } : {}),
    ...(modifies ? { modifies } : {}),
  });

  it("hands back a refund the way the original was paid, its cash share rounded half up by the shared rule", () => {
    const mixed = sale("E320000000001", "100.00", "15.25", {
      method: "mixto",
      parts: [
        { method: "efectivo", amount: "33.33" },
        { method: "tarjeta", amount: "66.67" },
      ],
    });
    // 50.00 × 33.33 / 100.00 = 16.665 → 16.67
    expect(cashRefunded(sale("E340000000001", "50.00", "7.63", undefined, mixed.encf), mixed)).toEqual({
      coef: 1667n,
      scale: 2,
    });
    expect(cashRefunded(sale("E340000000002", "50.00", "7.63"), undefined)).toEqual({ coef: 5000n, scale: 2 });
    const card = sale("E320000000002", "80.00", "12.20", {
      method: "tarjeta",
      parts: [{ method: "tarjeta", amount: "80.00" }],
    });
    expect(cashRefunded(sale("E340000000003", "80.00", "12.20", undefined, card.encf), card).coef).toBe(0n);
  });

  it.each([
    ["no sales", [], "500.00", "500.00", "500.00", "0.00"],
    ["a surplus", [["E320000000001", "0.10", "0.02", "0.10"]], "0.00", "0.30", "0.10", "0.20"],
    [
      "many cents add up exactly",
      Array.from({ length: 10 }, (_, i) => [`E3200000000${10 + i}`, "0.10", "0.02", "0.10"]),
      "0.00",
      "1.00",
      "1.00",
      "0.00",
    ],
  ] as const)("%s", (_label, rows, float, counted, expected, difference) => {
    const sales = rows.map(([encf, total, itbis, cashPart]) => sale(encf, total, itbis, cash(cashPart)));
    const report = zReport(float, sales, new Map(), counted);
    expect([report.expectedCash, report.difference]).toEqual([expected, difference]);
    expect(report.salesCount).toBe(rows.length);
  });
});

describe("handing shifts to the server", () => {
  it("sends what the server lacks, keeps it queued through a network failure, and records a refusal", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const ana = await cashier("Ana", "4821");
    const shift = await openShift(db, {
      cashier: ana,
      pin: "4821",
      openingFloat: "100",
      now: new Date("2026-11-25T12:00:00Z"),
    });
    const sent: unknown[] = [];
    const offline = await syncShifts(db, async () => {
      throw new TypeError("Failed to fetch");
    });
    expect(offline).toMatchObject({ sent: 0, retryLater: "Failed to fetch" });
    expect((await db.shifts.get(shift.id))?.sync).toBe("pending");

    expect(await syncShifts(db, async (s, body) => void sent.push([s.id, body]))).toMatchObject({
      sent: 1,
      refused: 0,
    });
    expect(sent).toEqual([
      [
        shift.id,
        { cashierId: ana.id, cashierName: "Ana", openedAt: "2026-11-25T12:00:00.000Z", openingFloat: "100.00" },
      ],
    ]);
    expect((await db.shifts.get(shift.id))?.sync).toBe("sent");

    await closeShift(db, shift.id, "100");
    const refused = await syncShifts(db, async () => {
      throw new ProblemError(409, {
        type: "https://ecf-edge.dev/problems/conflict",
        title: "Conflict",
        status: 409,
        detail: "The shift was closed",
        titleEs: "Conflicto",
        detailEs: "El turno ya se cerró",
        code: "conflict",
        requestId: "req_1",
        instance: "/devices/shifts/x",
        errors: [{ path: "/closedAt", code: "shift_closed", message: "final" }],
      });
    });
    expect(refused).toMatchObject({ sent: 0, refused: 1 });
    expect(await db.shifts.get(shift.id)).toMatchObject({ sync: "refused", lastError: "The shift was closed final" });
  });

  it("keeps a revoked pairing's token while a shift it opened is open or unsent, to hand that shift over", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const ana = await cashier("Ana", "4821");
    const shift = await openShift(db, { cashier: ana, pin: "4821", openingFloat: "0", deviceId: "dev_old" });
    await db.setSetting(RETIRED_TOKENS, { dev_old: "dvt_old" });
    await forgetSettledTokens(db);
    expect(await db.setting(RETIRED_TOKENS)).toEqual({ dev_old: "dvt_old" });
    await closeShift(db, shift.id, "0");
    expect(await syncShifts(db, async () => {})).toMatchObject({ sent: 1 });
    await forgetSettledTokens(db);
    expect(await db.setting(RETIRED_TOKENS)).toEqual({});
  });
});
