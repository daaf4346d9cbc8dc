// Voiding in the issuer object: what it knows about a range to void, the unused tail taken out of
// the sequence while DGII is asked, the ranges DGII voided (ANECF), and every number handed out of
// a type (for the list of unused numbers). The 608 reads the voided ranges of a month.
import { and, asc, eq, gte, lt, lte, ne } from "drizzle-orm";
import { deviceLeases, receiptIndex, sequences, voidedRanges } from "./issuer-tables.ts";
import { LEASE_COLUMNS, leaseHolding, leasesOverlapping, sequenceOf, type IssuerDb } from "./encf-allocation.ts";
import { monthsOfRange } from "./receipt-index.ts";
import type { Lease, Sequence } from "./issuer-row-types.ts";

export interface VoidRangeCheck {
  /** The authorised range, when there is one. */
  sequence: Sequence | null;
  /** Device leases overlapping the range. */
  leases: Lease[];
  /** Months holding receipts of the range. */
  months: string[];
}

/** A range's unused tail, taken out of the sequence: where the sequence was, and where it is now. */
export interface Tail {
  before: number;
  after: number;
}

/** Everything handed out of a type; the month objects say which registered numbers hold a receipt. */
export interface NumbersHandedOut {
  sequence: Sequence | null;
  runs: { first: number; last: number; month: string }[];
  covered: [number, number][];
}

/**
 * What the issuer object knows about a range to void: its sequence, leases and months. The leases
 * of `ownDevice` are left out: a till voids the numbers it gave up inside its own blocks.
 */
export function voidRangeCheck(
  db: IssuerDb,
  tipoeCF: string,
  from: number,
  to: number,
  ownDevice?: string,
): VoidRangeCheck {
  const leases = ownDevice
    ? db
        .select(LEASE_COLUMNS)
        .from(deviceLeases)
        .where(
          and(
            eq(deviceLeases.tipoeCF, tipoeCF),
            lte(deviceLeases.rangeFrom, to),
            gte(deviceLeases.rangeTo, from),
            ne(deviceLeases.deviceId, ownDevice),
          ),
        )
        .all()
    : leasesOverlapping(db, tipoeCF, from, to);
  return { sequence: sequenceOf(db, tipoeCF) ?? null, leases, months: monthsOfRange(db, tipoeCF, from, to) };
}

/** What the issuer object knows about a number a device gave up: whose it is, voided or not, where its receipt would be. */
export interface GivenUpCheck {
  /** Inside one of this device's own blocks. */
  ownLease: boolean;
  /** Inside a range DGII already voided. */
  voided: boolean;
  /** Months the receipt index names for the number (a receipt may hold it there). */
  months: string[];
}

export function givenUpCheck(db: IssuerDb, deviceId: string, tipoeCF: string, number: number): GivenUpCheck {
  return {
    ownLease: leaseHolding(db, deviceId, tipoeCF, number) !== null,
    voided: numberVoided(db, tipoeCF, number),
    months: monthsOfRange(db, tipoeCF, number, number),
  };
}

/** True when the number lies in a range DGII voided: it can never hold a receipt. */
export function numberVoided(db: IssuerDb, tipoeCF: string, number: number): boolean {
  const range = db
    .select({ first: voidedRanges.firstNumber })
    .from(voidedRanges)
    .where(
      and(
        eq(voidedRanges.tipoeCF, tipoeCF),
        lte(voidedRanges.firstNumber, number),
        gte(voidedRanges.lastNumber, number),
      ),
    )
    .get();
  return range !== undefined;
}

/**
 * Takes a range's unused tail out of the sequence, so no request or device can be handed those
 * numbers while DGII is asked. Null when the range lies wholly below the unused numbers,
 * "gap" when it starts above them.
 */
export function takeTail(db: IssuerDb, tipoeCF: string, from: number, to: number): Tail | null | "gap" {
  const row = sequenceOf(db, tipoeCF);
  if (!row || row.nextNumber < from) return "gap";
  if (row.nextNumber > to) return null;
  db.update(sequences)
    .set({ nextNumber: to + 1, updatedAt: new Date().toISOString() })
    .where(eq(sequences.tipoeCF, tipoeCF))
    .run();
  return { before: row.nextNumber, after: to + 1 };
}

/** Gives a tail back when nobody took a number after it. */
export function giveBackTail(db: IssuerDb, tipoeCF: string, tail: Tail): void {
  db.update(sequences)
    .set({ nextNumber: tail.before })
    .where(and(eq(sequences.tipoeCF, tipoeCF), eq(sequences.nextNumber, tail.after)))
    .run();
}

/** Ranges DGII voided: they are never listed as unused again. */
export function noteVoided(db: IssuerDb, tipoeCF: string, firstNumber: number, lastNumber: number): void {
  db.insert(voidedRanges).values({ tipoeCF, firstNumber, lastNumber }).onConflictDoNothing().run();
}

/** A range of one type by number, as a voiding names it to the issuer object. */
export interface NumberRange {
  tipoeCF: string;
  from: number;
  to: number;
}

/**
 * A voiding's step on the issuer's numbers. `hold`: each range's unused tail out of the sequence
 * while DGII is asked, and the months that may hold its receipts (read once the tail is taken, so
 * no new receipt can appear in it), stopping at the first range whose unused numbers moved;
 * `giveBack`: held tails returned, in the order given (last range first); `voided`: the ranges
 * DGII voided, remembered.
 */
export type VoidingStep =
  | { step: "hold"; ranges: NumberRange[] }
  | { step: "giveBack"; tails: { tipoeCF: string; tail: Tail }[] }
  | { step: "voided"; ranges: NumberRange[] };

/** A range held for voiding: its tail (null when wholly below `next_number`) and its months; "gap": it moved. */
export type HeldRange = { tail: Tail | null; months: string[] } | "gap";

/** Takes a voiding's step (see VoidingStep); the ranges held, for `hold` (none for the other steps). */
export function voidingStep(db: IssuerDb, step: VoidingStep): HeldRange[] {
  switch (step.step) {
    case "hold": {
      const held: HeldRange[] = [];
      for (const { tipoeCF, from, to } of step.ranges) {
        const tail = takeTail(db, tipoeCF, from, to);
        held.push(tail === "gap" ? tail : { tail, months: voidRangeCheck(db, tipoeCF, from, to).months });
        if (tail === "gap") break;
      }
      return held;
    }
    case "giveBack":
      for (const { tipoeCF, tail } of step.tails) giveBackTail(db, tipoeCF, tail);
      return [];
    case "voided":
      for (const { tipoeCF, from, to } of step.ranges) noteVoided(db, tipoeCF, from, to);
      return [];
    default: {
      const _: never = step;
      throw new Error(`unknown voiding step ${JSON.stringify(_)}`);
    }
  }
}

/**
 * Everything the issuer object knows about the numbers handed out of a type: the range, the runs
 * registered for receipts (by month), the device leases and the voided ranges. The month
 * objects say which registered numbers really hold a receipt (issuing/unused-numbers.ts).
 */
export function numbersHandedOut(db: IssuerDb, tipoeCF: string): NumbersHandedOut {
  const runs = db
    .select({ first: receiptIndex.firstNumber, last: receiptIndex.lastNumber, month: receiptIndex.month })
    .from(receiptIndex)
    .where(eq(receiptIndex.tipoeCF, tipoeCF))
    .all();
  const leases = leasesOverlapping(db, tipoeCF, 1, Number.MAX_SAFE_INTEGER).map((l): [number, number] => [
    l.rangeFrom,
    l.rangeTo,
  ]);
  const voided = db
    .select({ first: voidedRanges.firstNumber, last: voidedRanges.lastNumber })
    .from(voidedRanges)
    .where(eq(voidedRanges.tipoeCF, tipoeCF))
    .all()
    .map((v): [number, number] => [v.first, v.last]);
  return { sequence: sequenceOf(db, tipoeCF) ?? null, runs, covered: [...leases, ...voided] };
}

export interface VoidedRange {
  tipoeCF: string;
  firstNumber: number;
  lastNumber: number;
  /** When DGII voided it (UTC, ISO 8601). */
  voidedAt: string;
  /** Months holding receipts of the range (signed ones that were never sent, voided with it). */
  months: string[];
}

/** Ranges voided in [from, until) (UTC instants), oldest first. */
export function voidedRangesBetween(db: IssuerDb, from: string, until: string): VoidedRange[] {
  return db
    .select()
    .from(voidedRanges)
    .where(and(gte(voidedRanges.voidedAt, from), lt(voidedRanges.voidedAt, until)))
    .orderBy(asc(voidedRanges.voidedAt), asc(voidedRanges.tipoeCF), asc(voidedRanges.firstNumber))
    .all()
    .map((r) => ({ ...r, months: monthsOfRange(db, r.tipoeCF, r.firstNumber, r.lastNumber) }));
}
