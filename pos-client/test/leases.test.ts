import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase } from "../src/db.ts";
import {
  addLease,
  needsRefill,
  NoNumbersError,
  recoverLostNumbers,
  refillLeases,
  remaining,
  takeNumber,
  TAKEN_ENCF,
  UNUSED_ENCF,
} from "../src/leases.ts";

let db: PosDatabase;
afterEach(async () => {
  await db.delete();
});
const fresh = () => (db = new PosDatabase(`pos-${crypto.randomUUID()}`));
const TODAY = "2026-11-21";

describe("e-NCF leases on the device", () => {
  it("takes numbers strictly forward across blocks, never twice, even when taken concurrently", async () => {
    fresh();
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 5, expiresOn: "2099-12-31" });
    await addLease(db, { tipoeCF: "32", rangeFrom: 401, rangeTo: 405, expiresOn: "2099-12-31" });
    const taken = await Promise.all(Array.from({ length: 10 }, () => takeNumber(db, "32", TODAY)));
    expect(taken.map((t) => t.number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 401, 402, 403, 404, 405]);
    await expect(takeNumber(db, "32", TODAY)).rejects.toBeInstanceOf(NoNumbersError);
  });

  it.each([
    ["a block overlapping one already held", { rangeFrom: 3, rangeTo: 10 }, true],
    ["a block inside one already held", { rangeFrom: 2, rangeTo: 2 }, true],
    ["the same block again (a retried pairing)", { rangeFrom: 1, rangeTo: 5 }, false],
    ["the next block", { rangeFrom: 6, rangeTo: 10 }, false],
  ])("refuses %s only when it would reuse numbers", async (_label, block, refused) => {
    fresh();
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 5, expiresOn: "2099-12-31" });
    const adding = addLease(db, { tipoeCF: "32", ...block, expiresOn: "2099-12-31" });
    if (refused) await expect(adding).rejects.toThrow(/overlaps/);
    else await expect(adding).resolves.toBeUndefined();
  });

  it("asks for the next block when half of a block is used, and only then", async () => {
    fresh();
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 200, expiresOn: "2099-12-31" });
    const requested: string[] = [];
    const server = async (tipo: string, size: number) => {
      requested.push(tipo);
      return { tipoeCF: tipo, rangeFrom: 1001, rangeTo: 1000 + size, expiresOn: "2099-12-31" };
    };
    for (let i = 0; i < 99; i++) await takeNumber(db, "32", TODAY);
    expect(await needsRefill(db, "32", TODAY)).toBe(false); // 101 left
    await refillLeases(db, ["32"], server, TODAY);
    expect(requested).toEqual([]);
    await takeNumber(db, "32", TODAY); // 100 left: half a block
    await refillLeases(db, ["32"], server, TODAY);
    expect(requested).toEqual(["32"]);
    expect(await remaining(db, "32", TODAY)).toBe(300);
  });

  it("an expired block is not used", async () => {
    fresh();
    await addLease(db, { tipoeCF: "31", rangeFrom: 1, rangeTo: 5, expiresOn: "2026-11-20" });
    await expect(takeNumber(db, "31", TODAY)).rejects.toBeInstanceOf(NoNumbersError);
  });

  it("a number taken by a tab that died before recording its sale is recorded as unused, for voiding", async () => {
    fresh();
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 10, expiresOn: "2099-12-31" });
    const t0 = new Date("2026-11-21T15:00:00Z");
    const lost = await takeNumber(db, "32", TODAY, t0); // the tab dies here
    const used = await takeNumber(db, "32", TODAY, t0);
    await db.recordSignedSale(
      { id: "s", createdAt: "t", encf: used.encf, document: {} },
      { saleId: "s", encf: used.encf, signedXml: "<x/>" },
    );
    const inFlight = await takeNumber(db, "32", TODAY, new Date(t0.getTime() + 9 * 60_000)); // another tab, signing now
    const now = new Date(t0.getTime() + 10 * 60_000);
    expect(await recoverLostNumbers(db, now)).toEqual([lost.encf]);
    expect(await db.setting(UNUSED_ENCF)).toEqual([lost.encf]);
    // The one still being signed is left alone, and nothing is listed twice on a later pass.
    expect(await db.setting(TAKEN_ENCF)).toEqual({ [inFlight.encf]: expect.any(String) });
    expect(await recoverLostNumbers(db, now)).toEqual([]);
    expect(await db.setting(UNUSED_ENCF)).toEqual([lost.encf]);
    // Never reused: the next number is after all of them.
    expect((await takeNumber(db, "32", TODAY)).number).toBe(4);
  });
});
