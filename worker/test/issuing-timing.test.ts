import { afterEach, describe, expect, it } from "vitest";
import { clearFaults, issue, issueRequest, issuer, setFault } from "./support/issuing.ts";
import { forgetKeyLookups } from "../src/db/key-lookups.ts";

afterEach(clearFaults);

/** Durations (`name;dur=ms`) of the header; the round-trip counts (`rt-*;desc=n`) are read apart. */
const phasesOf = (header: string | null) =>
  Object.fromEntries(
    (header ?? "")
      .split(",")
      .filter((entry) => entry.includes(";dur="))
      .map((entry) => {
        const [name, dur] = entry.trim().split(";dur=");
        return [name, Number(dur)];
      }),
  );
const roundTripsOf = (header: string | null) =>
  Object.fromEntries(
    (header ?? "")
      .split(",")
      .filter((entry) => entry.includes(";desc="))
      .map((entry) => {
        const [name, count] = entry.trim().split(";desc=");
        return [name, Number(count)];
      }),
  );

describe("Server-Timing on POST /fe/recepcion/ecf", () => {
  it("reports storage and the DGII part separately; the DGII part holds its round trips and poll waits", async () => {
    const { token } = await issuer();
    const { status, headers } = await issue(token, issueRequest("31"));
    expect(status).toBe(200);
    const phases = phasesOf(headers.get("Server-Timing"));
    expect(Object.keys(phases).sort()).toEqual([
      "archive",
      "dgii",
      "dgii-wait",
      "number",
      "record",
      "storage",
      "transmit",
    ]);
    expect(phases.storage).toBeGreaterThan(0);
    // Storage's parts, timed apart too: the issuer object's numbering, the R2 archive, the month object's record.
    expect(phases.number).toBeGreaterThan(0);
    expect(phases.number + phases.archive + phases.record).toBeLessThanOrEqual(phases.storage + 0.3);
    expect(phases.dgii).toBeGreaterThan(0);
    // At least the first poll delay (DGII_POLL_DELAYS_MS starts at 200 ms in tests).
    expect(phases["dgii-wait"]).toBeGreaterThanOrEqual(199);
    expect(phases.transmit).toBeGreaterThanOrEqual(phases.dgii + phases["dgii-wait"]);
    // Storage round trips, counted: directory reads in D1, ledger RPCs, R2 writes.
    const trips = roundTripsOf(headers.get("Server-Timing"));
    expect(Object.keys(trips).sort()).toEqual(["rt-d1", "rt-ledger", "rt-r2"]);
    expect(trips["rt-ledger"]).toBeGreaterThanOrEqual(3); // the range, numbering, recording (and the state changes after)
    expect(trips["rt-r2"]).toBeGreaterThanOrEqual(1); // the signed XML
    expect(trips["rt-d1"]).toBe(1); // who is calling: the key and its issuer, in one query (then reused for a second)
  });

  it("in contingency nothing reaches DGII: no poll waits", async () => {
    const { token } = await issuer();
    await setFault({ mode: "down" });
    const { status, headers } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    const phases = phasesOf(headers.get("Server-Timing"));
    expect(phases.storage).toBeGreaterThan(0);
    expect(phases.transmit).toBeGreaterThan(0);
    expect(phases["dgii-wait"]).toBeUndefined();
    expect(phases.number).toBeGreaterThan(0);
    expect(phases.record).toBeGreaterThan(0);
    // DGII's status service says down before anything is recorded: the range (this issuer's first
    // receipt here), the number, and the receipt recorded straight in contingency (not recorded,
    // changed, then released).
    expect(roundTripsOf(headers.get("Server-Timing"))).toEqual({ "rt-d1": 1, "rt-ledger": 3, "rt-r2": 1 });
    // Then the range is known: the number and the record. With an Idempotency-Key too: the key is
    // checked and claimed with the number, in the same RPC (it names the receipt; no answer is
    // stored after it).
    // (Each request below reads its key afresh: an isolate reuses a key's lookup for a second.)
    forgetKeyLookups();
    const next = await issue(token, issueRequest("31"));
    expect(next.status).toBe(503);
    expect(roundTripsOf(next.headers.get("Server-Timing"))).toEqual({ "rt-d1": 1, "rt-ledger": 2, "rt-r2": 1 });
    forgetKeyLookups();
    const keyed = await issue(token, issueRequest("31"), { "Idempotency-Key": "order-1" });
    expect(keyed.status).toBe(503);
    expect(roundTripsOf(keyed.headers.get("Server-Timing"))).toEqual({ "rt-d1": 1, "rt-ledger": 2, "rt-r2": 1 });
  });
});
