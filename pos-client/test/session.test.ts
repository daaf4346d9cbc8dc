// A till paired before API 1.9.0 stored its issuer under 1.8.0's names (legalName, rnc,
// dgiiEnvironment); it reads it under today's, and a session stored today reads back unchanged.
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import type { DeviceCompany } from "../src/api.ts";
import { PosDatabase } from "../src/db.ts";
import { loadSession } from "../src/session.ts";

let db: PosDatabase;
afterEach(async () => {
  await db.delete();
});

const today: DeviceCompany = {
  id: "c-1",
  registryNumber: "131880681",
  name: "Colmado La Esquina SRL",
  tradeName: "La Esquina",
  address: "Calle 1",
  province: "010000",
  municipality: "010100",
  dgiiServer: "certecf",
};
const session = { deviceId: "d-1", deviceName: "Caja 1", token: "t" };

describe("a till's stored session", () => {
  it("reads an issuer stored under 1.8.0's names under today's, with nothing else changed", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    const { registryNumber, name, dgiiServer, ...rest } = today;
    const before190 = { ...rest, legalName: name, rnc: registryNumber, dgiiEnvironment: dgiiServer };
    await db.setSetting("session", { ...session, company: before190 });
    const loaded = await loadSession(db);
    expect(loaded).toEqual({ ...session, company: today });
    expect(Object.keys(loaded!.company).sort()).toEqual(Object.keys(today).sort());
  });

  it("reads a session stored under today's names as it was stored", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    await db.setSetting("session", { ...session, company: today });
    expect(await loadSession(db)).toEqual({ ...session, company: today });
  });
});
