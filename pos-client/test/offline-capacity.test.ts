// A day offline at the till's own pace: the stock of e-NCF numbers it keeps follows its own sales
// rate (configurable hours), blocks are asked for early and large enough, and a fifth left warns.
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase, type Sale } from "../src/db.ts";
import { addLease, refillLeases, remaining } from "../src/leases.ts";
import { CAPACITY_SETTING, numbersPerHour, stockNeeded, stockOf } from "../src/offline-capacity.ts";

let db: PosDatabase;
afterEach(async () => {
  await db?.delete();
});

const NOW = new Date("2026-11-20T18:00:00Z");
const TODAY = "2026-11-20";

/** `count` E32 sales spread evenly over the `hours` before NOW. */
async function soldOver(count: number, hours: number) {
  const sales: Sale[] = Array.from({ length: count }, (_, i) => ({
    id: `s${i}`,
    createdAt: new Date(NOW.getTime() - hours * 3_600_000 + (i * hours * 3_600_000) / count).toISOString(),
    encf: `E32${String(5000 + i).padStart(10, "0")}`,
    document: {},
    estado: "Aceptado",
  }));
  await db.sales.bulkAdd(sales);
}

describe("offline capacity", () => {
  it("a till selling 50 an hour keeps a day's stock (1,200): it asks early, in large blocks", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    await soldOver(300, 6);
    expect(await numbersPerHour(db, "32", NOW, 7)).toBe(50);
    expect(await stockNeeded(db, "32", NOW)).toBe(1200);
    // 150 left: the old rule (refill at half a block, 100) would wait; a day offline needs 1,200.
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 150, expiresOn: "2099-12-31" });
    const sizes: number[] = [];
    let next = 10_001;
    const server = async (tipo: string, size: number) => {
      sizes.push(size);
      const block = { tipoeCF: tipo, rangeFrom: next, rangeTo: next + size - 1, expiresOn: "2099-12-31" };
      next += size;
      return block;
    };
    await refillLeases(db, ["32"], server, TODAY, (t) => stockNeeded(db, t, NOW));
    expect(sizes).toEqual([1000, 1000]);
    expect(await remaining(db, "32", TODAY)).toBe(2150);
  });

  it("warns at a fifth of the day's stock, and the offline time is a setting", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    await soldOver(300, 6);
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 240, expiresOn: "2099-12-31" });
    expect(await stockOf(db, "32", NOW, TODAY)).toEqual({ tipoeCF: "32", remaining: 240, needed: 1200, low: true });
    await addLease(db, { tipoeCF: "32", rangeFrom: 241, rangeTo: 241, expiresOn: "2099-12-31" });
    expect((await stockOf(db, "32", NOW, TODAY)).low).toBe(false);
    // Two hours offline are enough for this till: 100 numbers (never less than half a block).
    await db.setSetting(CAPACITY_SETTING, { offlineHours: 2 });
    expect(await stockNeeded(db, "32", NOW)).toBe(100);
    // A till that has sold nothing yet keeps half a default block.
    expect(await stockNeeded(db, "31", NOW)).toBe(100);
  });
});
