import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase } from "../src/db.ts";

let db: PosDatabase;
afterEach(async () => {
  await db.delete();
});

describe("POS database", () => {
  it("stores a sale and its outbox entry together, in signing order", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    for (const n of [1, 2, 3]) {
      const encf = `E32000000000${n}`;
      await db.recordSignedSale(
        { id: `sale-${n}`, createdAt: `2026-11-21T10:0${n}:00Z`, encf, document: {} },
        { saleId: `sale-${n}`, encf, signedXml: `<ECF>${n}</ECF>` },
      );
    }
    const queued = await db.outbox.orderBy("seq").toArray();
    expect(queued.map((e) => e.encf)).toEqual(["E320000000001", "E320000000002", "E320000000003"]);
    expect(queued.every((e) => e.state === "pending")).toBe(true);
    expect(await db.sales.count()).toBe(3);
  });

  it("a duplicate e-NCF aborts the whole transaction: no sale without its outbox entry", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    await db.recordSignedSale(
      { id: "a", createdAt: "t", encf: "E320000000009", document: {} },
      { saleId: "a", encf: "E320000000009", signedXml: "<x/>" },
    );
    await expect(
      db.recordSignedSale(
        { id: "b", createdAt: "t", encf: "E320000000009", document: {} },
        { saleId: "b", encf: "E320000000009", signedXml: "<y/>" },
      ),
    ).rejects.toThrow();
    expect(await db.sales.get("b")).toBeUndefined();
    expect(await db.outbox.count()).toBe(1);
  });
});
