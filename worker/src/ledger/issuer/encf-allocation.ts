// e-NCF allocation inside an IssuerLedger: the API's next number, a client's own number, a
// device's block, and the tails taken out for voiding. The object runs one event at a time and
// these functions never await, so every read-check-write here is atomic without a transaction.
import { drDayStartUtc } from "@ecf/shared/dgii-time";
import { formatENcf } from "@ecf/shared/ids";
import type { TipoeCF } from "@ecf/shared/tipos";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { type Refused, refuse } from "../../errors/refusal.ts";
import { deviceLeases, sequences, usageCounters } from "./issuer-tables.ts";
import { param, preparedOnce } from "../prepared.ts";
import { cappedLeaseSize, DEFAULT_LEASE_LIMITS, type LeaseLimits } from "./lease-caps.ts";
import type * as issuerTables from "./issuer-tables.ts";
import type { Lease, Sequence } from "./issuer-row-types.ts";

export type IssuerDb = DrizzleSqliteDODatabase<typeof issuerTables>;

/** Largest sequence number an e-NCF can carry: E + type + 10 digits. */
export const MAX_SEQUENCE_NUMBER = 9_999_999_999;

export const encfOf = (tipoeCF: string, number: number) =>
  formatENcf(tipoeCF as TipoeCF, Math.min(Math.max(number, 1), MAX_SEQUENCE_NUMBER));
export const numberOf = (encf: string) => Number(encf.slice(3));

export interface AllocatedEncf {
  encf: string;
  number: number;
  /** FechaVencimientoSecuencia, ISO yyyy-MM-dd. */
  expiresOn: string;
}

/** The 422 for a range past its FechaVencimientoSecuencia. */
export function sequenceExpired(tipoeCF: string, expiresOn: string): Refused {
  return refuse("not_allowed", {
    detail: `The e-NCF range for type ${tipoeCF} expired on ${expiresOn}; request a new range from DGII.`,
    errors: [
      { path: "/Encabezado/IdDoc/TipoeCF", code: "sequence_expired", message: `Range expired on ${expiresOn}.` },
    ],
  });
}

const sequenceQuery = preparedOnce((db: IssuerDb) =>
  db
    .select()
    .from(sequences)
    .where(eq(sequences.tipoeCF, param("tipoeCF")))
    .prepare(),
);

export function sequenceOf(db: IssuerDb, tipoeCF: string): Sequence | undefined {
  return sequenceQuery(db).get({ tipoeCF });
}

/**
 * The usable range of a type, or the 422 that says why there is none (missing, expired, exhausted).
 * `sequence`: the type's row, when the caller read it already in the same write.
 */
function usableRange(db: IssuerDb, tipoeCF: string, today: string, sequence = sequenceOf(db, tipoeCF)): Sequence {
  const path = "/Encabezado/IdDoc/TipoeCF";
  if (!sequence) {
    throw refuse("not_allowed", {
      detail: `No authorised e-NCF range is registered for type ${tipoeCF}; register one with PUT /company/sequences/${tipoeCF}.`,
      errors: [{ path, code: "sequence_missing", message: `No e-NCF range for type ${tipoeCF}.` }],
    });
  }
  if (sequence.expiresOn < today) throw sequenceExpired(tipoeCF, sequence.expiresOn);
  if (sequence.nextNumber > sequence.rangeTo) {
    throw refuse("not_allowed", {
      detail: `The e-NCF range for type ${tipoeCF} is exhausted (last number ${encfOf(tipoeCF, sequence.rangeTo)}); request a new range from DGII.`,
      errors: [{ path, code: "sequence_exhausted", message: "Range exhausted." }],
    });
  }
  return sequence;
}

const moveNextQuery = preparedOnce((db: IssuerDb) =>
  db
    .update(sequences)
    .set({ nextNumber: param("nextNumber"), updatedAt: param("updatedAt") })
    .where(eq(sequences.tipoeCF, param("tipoeCF")))
    .prepare(),
);

function moveNext(db: IssuerDb, tipoeCF: string, nextNumber: number, now: Date): void {
  moveNextQuery(db).run({ tipoeCF, nextNumber, updatedAt: now.toISOString() });
}

// The next number taken in one statement, where the range is usable (unexpired, not exhausted)
// and still expires when the document was told (`expected`, null: any expiry).
const takeNextQuery = preparedOnce((db: IssuerDb) =>
  db
    .update(sequences)
    .set({ nextNumber: sql`${sequences.nextNumber} + 1`, updatedAt: param("updatedAt") })
    .where(
      and(
        eq(sequences.tipoeCF, param("tipoeCF")),
        gte(sequences.expiresOn, param("today")),
        lte(sequences.nextNumber, sequences.rangeTo),
        sql`(${param("expected")} IS NULL OR ${sequences.expiresOn} = ${param("expected")})`,
      ),
    )
    .returning({ nextNumber: sequences.nextNumber, expiresOn: sequences.expiresOn })
    .prepare(),
);

/**
 * The API's next e-NCF of an authorised range, in one statement. A missing, expired or exhausted
 * range is a 422; a range whose expiry is no longer `expectedExpiry` (the one the document was
 * validated against: renewed since) takes nothing and says so.
 */
export function allocateEncf(
  db: IssuerDb,
  tipoeCF: string,
  today: string,
  now: Date,
  expectedExpiry?: string,
): AllocatedEncf | "rangeChanged" {
  const taken = takeNextQuery(db).get({
    tipoeCF,
    today,
    expected: expectedExpiry ?? null,
    updatedAt: now.toISOString(),
  });
  if (taken)
    return { encf: encfOf(tipoeCF, taken.nextNumber - 1), number: taken.nextNumber - 1, expiresOn: taken.expiresOn };
  // Nothing taken: why.
  const sequence = sequenceOf(db, tipoeCF);
  if (expectedExpiry !== undefined && sequence?.expiresOn !== expectedExpiry) return "rangeChanged";
  usableRange(db, tipoeCF, today, sequence);
  throw new Error(`allocateEncf: the range of type ${tipoeCF} is usable, yet no number was taken`);
}

/**
 * A client that numbers its own receipts must use a number of an authorised, unexpired range that
 * nobody has been handed yet. Taking it moves the sequence past it, so neither the API nor a
 * device lease can ever hand it out again.
 */
export function takeClientEncf(db: IssuerDb, encf: string, tipoeCF: string, today: string, now: Date): AllocatedEncf {
  const path = "/Encabezado/IdDoc/eNCF";
  const match = /^E(\d{2})(\d{10})$/.exec(encf);
  if (!match || match[1] !== tipoeCF) {
    throw refuse("invalid", {
      errors: [{ path, code: "invalid_format", message: `eNCF must be E${tipoeCF} followed by 10 digits.` }],
    });
  }
  const number = Number(match[2]);
  const range = sequenceOf(db, tipoeCF);
  if (!range || number < range.rangeFrom || number > range.rangeTo) {
    throw refuse("not_allowed", {
      detail: `e-NCF ${encf} is outside the authorised range.`,
      errors: [{ path, code: "encf_out_of_range", message: "Outside the authorised range." }],
    });
  }
  if (range.expiresOn < today) {
    throw refuse("not_allowed", {
      detail: `The range of e-NCF ${encf} expired on ${range.expiresOn}.`,
      errors: [{ path, code: "sequence_expired", message: "Range expired." }],
    });
  }
  if (range.nextNumber > number) {
    throw refuse("conflict", {
      detail: `e-NCF ${encf} was already handed out (to this API or a device); use a number from ${encfOf(tipoeCF, range.nextNumber)} on, or let the service number it.`,
      errors: [{ path, code: "encf_used", message: "Already handed out." }],
    });
  }
  moveNext(db, tipoeCF, number + 1, now);
  return { encf, number, expiresOn: range.expiresOn };
}

/** Largest block a device may hold per request: enough for a busy day offline. */
export const MAX_LEASE_SIZE = 1000;
export { DEFAULT_LEASE_SIZE } from "@ecf/shared/pos-device";

/**
 * A block of up to `size` numbers for a device, cut from the same sequence the API numbers from,
 * so a block never overlaps another device's block nor an API receipt. When fewer than `size`
 * numbers remain, the rest of the range is leased instead.
 */
export function leaseBlock(
  db: IssuerDb,
  deviceId: string,
  tipoeCF: string,
  size: number,
  today: string,
  now: Date,
  limits: LeaseLimits = DEFAULT_LEASE_LIMITS,
): Lease {
  const range = usableRange(db, tipoeCF, today);
  const allowed = cappedLeaseSize(db, deviceId, tipoeCF, size, range.rangeTo - range.nextNumber + 1, limits, now);
  const rangeTo = range.nextNumber + allowed - 1;
  moveNext(db, tipoeCF, rangeTo + 1, now);
  const lease = { tipoeCF, rangeFrom: range.nextNumber, rangeTo, expiresOn: range.expiresOn };
  db.insert(deviceLeases)
    .values({ deviceId, ...lease })
    .run();
  return lease;
}

/** A lease as the till and the voiding see it. */
export const LEASE_COLUMNS = {
  tipoeCF: deviceLeases.tipoeCF,
  rangeFrom: deviceLeases.rangeFrom,
  rangeTo: deviceLeases.rangeTo,
  expiresOn: deviceLeases.expiresOn,
};

/** The lease of this device that holds `number`, if any. */
export function leaseHolding(db: IssuerDb, deviceId: string, tipoeCF: string, number: number): Lease | null {
  return (
    db
      .select(LEASE_COLUMNS)
      .from(deviceLeases)
      .where(
        and(
          eq(deviceLeases.deviceId, deviceId),
          eq(deviceLeases.tipoeCF, tipoeCF),
          lte(deviceLeases.rangeFrom, number),
          gte(deviceLeases.rangeTo, number),
        ),
      )
      .get() ?? null
  );
}

/** Leases of any device that overlap [from, to]. */
export function leasesOverlapping(db: IssuerDb, tipoeCF: string, from: number, to: number): Lease[] {
  return db
    .select(LEASE_COLUMNS)
    .from(deviceLeases)
    .where(and(eq(deviceLeases.tipoeCF, tipoeCF), lte(deviceLeases.rangeFrom, to), gte(deviceLeases.rangeTo, from)))
    .all();
}

/** `yyyy-MM` → the month after it. */
function nextMonth(month: string): string {
  const [y, m] = month.split("-").map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
}

/** 429 `quota_exceeded` when the month's quota is used up (checked before anything is taken). */
export function assertQuotaLeft(db: IssuerDb, month: string, limit: number): void {
  if (limit <= 0 || invoicesIn(db, month) >= limit) {
    throw refuse("quota_exceeded", {
      detail: `The monthly limit of ${limit} receipts for ${month} has been reached.`,
      extensions: { limit, month },
      // The quota comes back when the next month starts in Santo Domingo.
      retryAfter: (Date.parse(drDayStartUtc(`${nextMonth(month)}-01`)) - Date.now()) / 1000,
    });
  }
}

const countInvoiceQuery = preparedOnce((db: IssuerDb) =>
  db
    .insert(usageCounters)
    .values({ month: param("month"), invoices: 1 })
    .onConflictDoUpdate({ target: usageCounters.month, set: { invoices: sql`${usageCounters.invoices} + 1` } })
    .returning({ invoices: usageCounters.invoices })
    .prepare(),
);

/** Counts one receipt against the month's quota (a device's receipt is counted, never refused); the month's count now. */
export function countInvoice(db: IssuerDb, month: string): number {
  return countInvoiceQuery(db).get({ month })!.invoices;
}

const invoicesQuery = preparedOnce((db: IssuerDb) =>
  db
    .select({ invoices: usageCounters.invoices })
    .from(usageCounters)
    .where(eq(usageCounters.month, param("month")))
    .prepare(),
);

export function invoicesIn(db: IssuerDb, month: string): number {
  return invoicesQuery(db).get({ month })?.invoices ?? 0;
}
