import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase, type Product } from "../src/db.ts";
import { searchProducts } from "../src/sale/product-search.ts";

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

  it("a product replaced by put (an edit, a catalogue page) is still found by the words of its name", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const cafe: Product = {
      code: "7460001",
      name: "Café Santo Domingo 1 lb",
      price: "350",
      itbis: "18",
      unit: "43",
      kind: "1",
    };
    await db.products.put({ ...cafe });
    // The edit writes a plain object without `words`, as the till's product form does.
    await db.products.put({ ...cafe, price: "360" });
    const found = await searchProducts(db, "Café", 0, 24);
    expect(found.items.map((p) => [p.code, p.price])).toEqual([["7460001", "360"]]);
    expect((await searchProducts(db, "santo dom", 0, 24)).total).toBe(1);
  });
});
