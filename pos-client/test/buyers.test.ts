// Buyers by RNC on the till: the registry online, the recent buyers offline, 404 as "type it".
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import type { Taxpayer } from "../src/api.ts";
import { PosDatabase } from "../src/db.ts";
import { inactiveWarning, lookupBuyer, RECENT_BUYERS_MAX, rememberBuyer } from "../src/sale/buyers.ts";

let db: PosDatabase;
afterEach(async () => {
  await db?.delete();
});

const registry = (rows: Taxpayer[]) => {
  const asked: string[] = [];
  const find = async (rnc: string) => {
    asked.push(rnc);
    return rows.find((r) => r.rnc === rnc) ?? null;
  };
  return { find, asked };
};
const unreachable = async (): Promise<Taxpayer | null> => {
  throw new TypeError("Failed to fetch");
};
const taxpayer = (rnc: string, legalName: string, status = "ACTIVO"): Taxpayer => ({
  rnc,
  legalName,
  tradeName: null,
  activity: null,
  status,
  active: status === "ACTIVO",
  paymentRegime: null,
  registeredOn: null,
  registryImportedAt: "2026-11-01T00:00:00.000Z",
});

describe("buyers by RNC", () => {
  it("online: the registry's name and status; remembered for offline use", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const r = registry([
      taxpayer("131880738", "DIRECCION GENERAL DE IMPUESTOS INTERNOS"),
      taxpayer("101010101", "FERRETERIA CERRADA SRL", "SUSPENDIDO"),
    ]);
    const found = await lookupBuyer(db, "131880738", r.find, new Date("2026-11-25T10:00:00Z"));
    expect(found).toEqual({
      kind: "found",
      source: "registry",
      buyer: {
        rnc: "131880738",
        name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS",
        status: "ACTIVO",
        active: true,
        usedAt: "2026-11-25T10:00:00.000Z",
      },
    });
    const suspended = await lookupBuyer(db, "101010101", r.find);
    expect(suspended.kind === "found" && inactiveWarning(suspended.buyer)).toBe(
      "Atención: el contribuyente está SUSPENDIDO en la DGII (no activo).",
    );
    expect(found.kind === "found" && inactiveWarning(found.buyer)).toBe("");
    // Offline (no registry), and with the registry unreachable: the till remembers.
    expect(await lookupBuyer(db, "131880738", undefined)).toMatchObject({
      kind: "found",
      source: "recent",
      buyer: { name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" },
    });
    expect(await lookupBuyer(db, "101010101", unreachable)).toMatchObject({
      kind: "found",
      source: "recent",
      buyer: { active: false },
    });
  });

  it("not in the registry: not-found (the cashier types the name); offline and unknown: unknown; bad forms are not asked", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const r = registry([]);
    expect(await lookupBuyer(db, "999999999", r.find)).toEqual({ kind: "not-found" });
    expect(await lookupBuyer(db, "999999999", undefined)).toEqual({ kind: "unknown" });
    expect(await lookupBuyer(db, "12345", r.find)).toEqual({ kind: "unknown" });
    expect(await lookupBuyer(db, "1234567890", r.find)).toEqual({ kind: "unknown" });
    expect(r.asked).toEqual(["999999999"]);
    // A name the cashier typed on a receipt is found again, even though the registry lacks it.
    await rememberBuyer(db, { rnc: "999999999", name: "CLIENTE NUEVO SRL", usedAt: new Date().toISOString() });
    expect(await lookupBuyer(db, "999999999", r.find)).toMatchObject({
      kind: "found",
      source: "recent",
      buyer: { name: "CLIENTE NUEVO SRL" },
    });
    expect(await lookupBuyer(db, "40212345678", unreachable)).toEqual({ kind: "unknown" });
  });

  it("keeps the most recently used buyers, up to the limit", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const base = Date.parse("2026-01-01T00:00:00Z");
    await db.buyers.bulkPut(
      Array.from({ length: RECENT_BUYERS_MAX }, (_, i) => ({
        rnc: String(100000000 + i),
        name: `B${i}`,
        usedAt: new Date(base + i * 1000).toISOString(),
      })),
    );
    // Using the oldest one again makes it recent: the next new buyer pushes out the second oldest.
    await rememberBuyer(db, { rnc: "100000000", name: "B0", usedAt: new Date(base + 10_000_000).toISOString() });
    await rememberBuyer(db, { rnc: "200000000", name: "NEW", usedAt: new Date(base + 10_000_001).toISOString() });
    expect(await db.buyers.count()).toBe(RECENT_BUYERS_MAX);
    expect(await db.buyers.get("100000000")).toBeDefined();
    expect(await db.buyers.get("100000001")).toBeUndefined();
    expect(await db.buyers.get("200000000")).toBeDefined();
  });
});
