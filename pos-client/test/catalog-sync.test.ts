// Catalogue sync on the till against a server that behaves like GET /devices/catalog: the version
// cursor, paging (complete: false), deactivation, a pull cut short, another issuer, and a till that
// keeps selling with what it has when the server cannot be reached.
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { createTestIdentity } from "@ecf/shared/test-support/certs";
import type { CatalogCashier, CatalogProduct, DeviceCatalog } from "../src/api.ts";
import { PosDatabase } from "../src/db.ts";
import { addLease } from "../src/leases.ts";
import { issueReceipt } from "../src/sale/issue.ts";
import { installSigningKey } from "../src/signing/keystore.ts";
import { CatalogSync, catalogState, pullCatalog } from "../src/sync/catalog.ts";

// The window's online event and navigator.onLine, as the till's browser has them.
const windowEvents = new EventTarget();
Object.assign(globalThis, {
  addEventListener: windowEvents.addEventListener.bind(windowEvents),
  removeEventListener: windowEvents.removeEventListener.bind(windowEvents),
});
let onLine = true;
Object.defineProperty(globalThis, "navigator", {
  configurable: true,
  value: {
    get onLine() {
      return onLine;
    },
  },
});

let db: PosDatabase;
afterEach(async () => {
  await db?.delete();
});

const COMPANY = "company-a";

/** The issuer's catalogue as the server keeps it: one version counter, each change takes the next. */
function server(pageSize = 100) {
  let version = 0;
  const products = new Map<string, CatalogProduct>();
  const cashiers = new Map<string, CatalogCashier>();
  const asked: number[] = [];
  let canEditPrices = false;
  let failing = false;
  const put = (p: Partial<CatalogProduct> & { id: string }) => {
    const before = products.get(p.id);
    const row: CatalogProduct = {
      code: p.id.toUpperCase(),
      barcodes: [],
      name: `Producto ${p.id}`,
      price: "100.00",
      priceIncludesItbis: true,
      itbisRate: "18",
      unit: "43",
      kind: "good",
      active: true,
      ...before,
      ...p,
      version: ++version,
      updatedAt: new Date().toISOString(),
    };
    products.set(p.id, row);
    return row;
  };
  const fetchPage = async (since: number, limit: number): Promise<DeviceCatalog> => {
    asked.push(since);
    if (failing) throw new TypeError("Failed to fetch");
    const changed = [
      ...[...products.values()].filter((p) => p.version > since).map((p) => ({ kind: "p" as const, v: p.version, p })),
      ...[...cashiers.values()].filter((c) => c.version > since).map((c) => ({ kind: "c" as const, v: c.version, c })),
    ].sort((a, b) => a.v - b.v);
    const page = changed.slice(0, Math.min(limit, pageSize));
    const complete = page.length === changed.length;
    return {
      version,
      products: page.flatMap((x) => (x.kind === "p" ? [x.p] : [])),
      cashiers: page.flatMap((x) => (x.kind === "c" ? [x.c] : [])),
      nextSince: complete ? version : page.at(-1)!.v,
      complete,
      device: { canEditPrices },
    };
  };
  return {
    put,
    cashier: (id: string, name: string, active = true) =>
      cashiers.set(id, {
        id,
        name,
        active,
        version: ++version,
        pin: { algorithm: "PBKDF2-SHA256", iterations: 100_000, salt: "c2FsdA==", hash: "aGFzaA==" },
      }),
    fetchPage,
    asked,
    setCanEditPrices: (v: boolean) => (canEditPrices = v),
    setFailing: (v: boolean) => (failing = v),
    get version() {
      return version;
    },
  };
}

const open = () => (db = new PosDatabase(`pos-${crypto.randomUUID()}`));
const codes = async () => (await db.products.orderBy("code").toArray()).map((p) => p.code);

describe("catalogue sync", () => {
  it("first pull takes everything from version 0; the next asks only after the stored version", async () => {
    open();
    const s = server();
    s.put({ id: "a", barcodes: ["7460001000011"], price: "99.99" });
    s.put({ id: "b", itbisRate: "exempt", kind: "service", priceIncludesItbis: false });
    s.cashier("c1", "Ana");
    const first = await pullCatalog(db, COMPANY, s.fetchPage, () => new Date("2026-11-25T12:00:00Z"));
    expect(first).toMatchObject({ version: 3, pages: 1, updated: 2, removed: 0, cashiers: 1, canEditPrices: false });
    expect(await codes()).toEqual(["A", "B"]);
    expect(await db.products.get("A")).toMatchObject({
      id: "a",
      price: "99.99",
      itbis: "18",
      priceIncludesItbis: true,
      kind: "1",
      barcodes: ["7460001000011"],
      version: 1,
    });
    expect(await db.products.get("B")).toMatchObject({ itbis: "E", kind: "2", priceIncludesItbis: false });
    expect(await db.products.where("barcodes").equals("7460001000011").first()).toMatchObject({ code: "A" });
    expect((await db.cashiers.get("c1"))?.pin).toMatchObject({ iterations: 100_000 });
    expect(await catalogState(db)).toEqual({ version: 3, updatedAt: "2026-11-25T12:00:00.000Z", canEditPrices: false });

    s.put({ id: "a", price: "109.99" });
    s.setCanEditPrices(true);
    const second = await pullCatalog(db, COMPANY, s.fetchPage, () => new Date("2026-11-25T12:01:00Z"));
    expect(s.asked).toEqual([0, 3]);
    expect(second).toMatchObject({ version: 4, updated: 1, cashiers: 0, canEditPrices: true });
    expect((await db.products.get("A"))?.price).toBe("109.99");
    expect(await catalogState(db)).toEqual({ version: 4, updatedAt: "2026-11-25T12:01:00.000Z", canEditPrices: true });
  });

  it("pages until complete, each page from the previous page's nextSince", async () => {
    open();
    const s = server(3);
    for (let i = 1; i <= 10; i++) s.put({ id: `p${String(i).padStart(2, "0")}` });
    const report = await pullCatalog(db, COMPANY, s.fetchPage);
    expect(report).toMatchObject({ pages: 4, updated: 10, version: 10 });
    expect(s.asked).toEqual([0, 3, 6, 9]);
    expect(await db.products.count()).toBe(10);
    expect((await catalogState(db)).version).toBe(10);
  });

  it("a pull cut short keeps the pages applied and resumes after them; updatedAt waits for a complete pull", async () => {
    open();
    const s = server(2);
    for (const id of ["a", "b", "c", "d", "e"]) s.put({ id });
    let calls = 0;
    const flaky = async (since: number, limit: number) => {
      if (++calls === 2) throw new TypeError("Failed to fetch");
      return s.fetchPage(since, limit);
    };
    await expect(pullCatalog(db, COMPANY, flaky)).rejects.toThrow("Failed to fetch");
    expect(await codes()).toEqual(["A", "B"]);
    expect(await catalogState(db)).toEqual({ version: 2, updatedAt: undefined, canEditPrices: false });
    await pullCatalog(db, COMPANY, flaky);
    expect(await codes()).toEqual(["A", "B", "C", "D", "E"]);
    expect(s.asked).toEqual([0, 2, 4]);
    expect((await catalogState(db)).updatedAt).toBeDefined();
  });

  it("a deactivated product leaves the sale lookups; a renamed code leaves no row under the old one", async () => {
    open();
    const s = server();
    s.put({ id: "a", barcodes: ["111"] });
    s.put({ id: "b" });
    await pullCatalog(db, COMPANY, s.fetchPage);
    s.put({ id: "a", active: false });
    s.put({ id: "b", code: "B-NEW", barcodes: ["222"] });
    const report = await pullCatalog(db, COMPANY, s.fetchPage);
    expect(report).toMatchObject({ removed: 1, updated: 1 });
    expect(await codes()).toEqual(["B-NEW"]);
    expect(await db.products.where("barcodes").equals("111").count()).toBe(0);
    // Active again: back on sale.
    s.put({ id: "a", active: true });
    await pullCatalog(db, COMPANY, s.fetchPage);
    expect(await codes()).toEqual(["A", "B-NEW"]);
  });

  it("a price edited on the till is replaced by the next server change of that product, kept until then", async () => {
    open();
    const s = server();
    s.put({ id: "a", price: "50.00" });
    s.put({ id: "b", price: "60.00" });
    await pullCatalog(db, COMPANY, s.fetchPage);
    await db.products.update("A", { price: "45.00", priceEditedHere: true });
    await db.products.update("B", { price: "55.00", priceEditedHere: true });
    s.put({ id: "a", name: "Renombrado" });
    await pullCatalog(db, COMPANY, s.fetchPage);
    expect(await db.products.get("A")).toMatchObject({ price: "50.00", name: "Renombrado" });
    expect((await db.products.get("A"))?.priceEditedHere).toBeUndefined();
    expect(await db.products.get("B")).toMatchObject({ price: "55.00", priceEditedHere: true });
  });

  it("paired to another issuer: the other catalogue goes and the pull starts at 0; a first pull keeps hand-typed products", async () => {
    open();
    await db.products.put({ code: "MANUAL", name: "Hecho a mano", price: "10", itbis: "18", unit: "43", kind: "1" });
    const a = server();
    a.put({ id: "a" });
    a.cashier("c1", "Ana");
    await pullCatalog(db, COMPANY, a.fetchPage);
    expect(await codes()).toEqual(["A", "MANUAL"]);
    const b = server();
    b.put({ id: "z" });
    await pullCatalog(db, "company-b", b.fetchPage);
    expect(b.asked).toEqual([0]);
    expect(await codes()).toEqual(["Z"]);
    expect(await db.cashiers.count()).toBe(0);
  });

  it("cashiers: changes and deactivations arrive with the same cursor", async () => {
    open();
    const s = server();
    s.cashier("c1", "Ana");
    s.cashier("c2", "Luis");
    await pullCatalog(db, COMPANY, s.fetchPage);
    s.cashier("c2", "Luis", false);
    await pullCatalog(db, COMPANY, s.fetchPage);
    expect((await db.cashiers.toArray()).map((c) => [c.name, c.active])).toEqual([
      ["Ana", true],
      ["Luis", false],
    ]);
  });

  it("two tabs pulling at once apply each change once and the cursor never goes back", async () => {
    open();
    const s = server(2);
    for (const id of ["a", "b", "c", "d", "e", "f"]) s.put({ id });
    const other = new PosDatabase(db.name);
    try {
      await Promise.all([pullCatalog(db, COMPANY, s.fetchPage), pullCatalog(other, COMPANY, s.fetchPage)]);
      expect(await codes()).toEqual(["A", "B", "C", "D", "E", "F"]);
      expect((await catalogState(db)).version).toBe(6);
    } finally {
      other.close();
    }
  });

  it("offline: the pull fails, the till keeps its catalogue and sells with it", async () => {
    open();
    const s = server();
    s.put({ id: "a", price: "118.00" });
    const sync = new CatalogSync(db, COMPANY, s.fetchPage, () => {}, 60_000);
    sync.start();
    await sync.running;
    sync.stop();
    s.setFailing(true);
    s.put({ id: "a", price: "236.00" });
    await expect(pullCatalog(db, COMPANY, s.fetchPage)).rejects.toThrow();
    expect((await db.products.get("A"))?.price).toBe("118.00");
    expect((await catalogState(db)).version).toBe(1);

    const identity = await createTestIdentity({ rnc: "131880681" });
    const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
    await installSigningKey(db, {
      pkcs8: b64(identity.pkcs8),
      certificate: b64(identity.certificateDer),
      certificateSerial: null,
    });
    await addLease(db, { tipoeCF: "32", rangeFrom: 1, rangeTo: 10, expiresOn: "2099-12-31" });
    const product = (await db.products.get("A"))!;
    const issued = await issueReceipt(db, {
      tipoeCF: "32",
      emisor: { rnc: "131880681", legalName: "DEMO SRL", address: "Calle 1" },
      lines: [{ product, quantity: "1", discountPercent: "" }],
      environment: "testecf",
      online: false,
    });
    expect(issued.sale.montoTotal).toBe("118.00");
    expect(issued.signedXml).toContain("<IndicadorMontoGravado>1</IndicadorMontoGravado>");
  });

  it("CatalogSync: pulls at start and on each kick, one at a time, and tells who listens", async () => {
    open();
    const s = server();
    s.put({ id: "a" });
    const heard: number[] = [];
    const sync = new CatalogSync(db, COMPANY, s.fetchPage, (r) => heard.push(r.version), 60_000);
    sync.start();
    sync.kick();
    await sync.running;
    s.put({ id: "b" });
    sync.kick();
    await sync.running;
    // Offline: no request at all; the browser's online event pulls.
    onLine = false;
    s.put({ id: "c" });
    sync.kick();
    expect(sync.running).toBeUndefined();
    onLine = true;
    windowEvents.dispatchEvent(new Event("online"));
    await sync.running;
    sync.stop();
    windowEvents.dispatchEvent(new Event("online"));
    sync.kick();
    expect(sync.running).toBeUndefined();
    expect(heard).toEqual([1, 2, 3]);
    expect(s.asked).toEqual([0, 1, 2]);
  });
});
