// The till's list of given-up numbers across sync rounds (fake-indexeddb): what the server voided
// or refused for good leaves the list and shows in the Z report as such; what it could not settle
// stays; a number given up while the request was out is kept. The server's side is
// worker/test/device-given-up.test.ts; the whole path in Chromium is test/browser/given-up.browser.test.ts.
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it } from "vitest";
import { PosDatabase } from "../src/db.ts";
import { giveUpNumber, UNUSED_ENCF } from "../src/leases.ts";
import { givenUpNumbers, GIVEN_UP_OUTCOMES, syncGivenUp, type VoidGivenUp } from "../src/sync/given-up.ts";

let db: PosDatabase;
afterEach(async () => {
  await db?.delete();
});

describe("given-up numbers are voided through the sync round", () => {
  it("voided and finally refused numbers leave the list; the rest and one given up meanwhile stay", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    for (const encf of ["E320000000003", "E320000000009", "E310000000004", "E320000000011"])
      await giveUpNumber(db, encf);
    const asked: string[][] = [];
    const server: VoidGivenUp = async (numbers) => {
      asked.push(numbers.map((n) => `${n.tipoeCF}:${n.encf}`));
      // A sale's number is given up while the request is out.
      await giveUpNumber(db, "E320000000012");
      return [
        { encf: "E320000000003", anulado: true },
        { encf: "E320000000009", anulado: false, error: { code: "encf_used", message: "holds a receipt" } },
        { encf: "E310000000004", anulado: false, error: { code: "encf_busy", message: "ask again" } },
        { encf: "E320000000011", anulado: false },
      ];
    };
    const at = new Date("2026-11-27T15:00:00Z");
    expect(await syncGivenUp(db, server, () => at)).toEqual({ voided: 1, refused: 1 });
    expect(asked).toEqual([["32:E320000000003", "32:E320000000009", "31:E310000000004", "32:E320000000011"]]);
    expect(await db.setting(UNUSED_ENCF)).toEqual(["E310000000004", "E320000000011", "E320000000012"]);
    expect(await db.setting(GIVEN_UP_OUTCOMES)).toEqual({
      E320000000003: { estado: "Anulado", at: at.toISOString() },
      E320000000009: { estado: "No anulado", at: at.toISOString(), message: "ya tiene un comprobante" },
    });

    // The Z report of a shift opened before the answer: every number, in e-NCF order.
    expect(await givenUpNumbers(db, "2026-11-27T08:00:00.000Z")).toEqual([
      { encf: "E310000000004", estado: "Por anular" },
      { encf: "E320000000003", estado: "Anulado" },
      { encf: "E320000000009", estado: "No anulado", message: "ya tiene un comprobante" },
      { encf: "E320000000011", estado: "Por anular" },
      { encf: "E320000000012", estado: "Por anular" },
    ]);
    // A later shift shows only what is still to void.
    expect((await givenUpNumbers(db, "2026-11-28T08:00:00.000Z")).map((n) => n.estado)).toEqual([
      "Por anular",
      "Por anular",
      "Por anular",
    ]);
  });

  it("a failed request changes nothing; with nothing given up the server is not asked", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    let calls = 0;
    const unreachable: VoidGivenUp = async () => {
      calls++;
      throw new TypeError("fetch failed");
    };
    expect(await syncGivenUp(db, unreachable)).toEqual({ voided: 0, refused: 0 });
    expect(calls).toBe(0);
    await giveUpNumber(db, "E320000000003");
    await expect(syncGivenUp(db, unreachable)).rejects.toThrow("fetch failed");
    expect(await db.setting(UNUSED_ENCF)).toEqual(["E320000000003"]);
    expect(await db.setting(GIVEN_UP_OUTCOMES)).toBeUndefined();
  });
});
