// Numbering in the issuer object: authorised ranges, one API receipt's number (quota unit, e-NCF,
// place in the receipt index and Idempotency-Key in one write), and a device's receipts admitted
// against its leases. Each function runs to completion without awaiting, inside one RPC, so the
// object's single thread makes it atomic: two requests never take the same number.
import { eq } from "drizzle-orm";
import type { IdempotencyKeys, IdempotencyRequest, KeyHolder } from "./idempotency.ts";
import { deviceLeases, notices, sequences } from "./issuer-tables.ts";
import {
  allocateEncf,
  assertQuotaLeft,
  countInvoice,
  encfOf,
  LEASE_COLUMNS,
  leaseHolding,
  sequenceOf,
  takeClientEncf,
  type AllocatedEncf,
  type IssuerDb,
} from "./encf-allocation.ts";
import { monthOfNumber, registerNewNumber, registerNumber } from "./receipt-index.ts";
import { refuse } from "../../errors/refusal.ts";
import type { Lease, Sequence } from "./issuer-row-types.ts";
import { numberVoided } from "./voided-numbers.ts";

export interface NumberRequest {
  tipoeCF: string;
  /** The client's own e-NCF, when it numbers its receipts itself. */
  givenEncf?: string;
  /** The month (yyyy-MM) the receipt will be recorded in: its FechaEmision's. */
  month: string;
  /** Today in Santo Domingo (yyyy-MM-dd), for range expiry, and the quota's month and limit. */
  today: string;
  quota: { month: string; limit: number };
  now: string;
  /** The request's `Idempotency-Key`, claimed with the number (in the same write). */
  idempotency?: IdempotencyRequest;
  /**
   * The range's expiry the document was validated against (its FechaVencimientoSecuencia): when
   * the range's is another now, nothing is taken and the answer says so (`rangeChanged`).
   */
  rangeExpiresOn?: string;
}

/** What numbering answers: the number, or the key's holder, or that the range changed under the request. */
export type NumberAnswer =
  | { held: KeyHolder }
  | { held: null; numbered: Numbered }
  | { held: null; rangeChanged: true };

/** What issuing reads before it validates a document: the range's state, and who holds the key. */
export interface IssueCheck {
  sequence: Sequence | null;
  held: KeyHolder | null;
}

export type Numbered = AllocatedEncf & { month: string; quotaNearLimit: { used: number; limit: number } | null };

/** Device receipt admission: inside one of the device's leases, and the month object that holds it. */
export interface Admission {
  leased: boolean;
  month: string;
  /** The number was voided (the device gave it up): it can hold no receipt. */
  voided?: true;
}

/** Read only: the range a document will be numbered from, and who holds the request's Idempotency-Key. */
export function issueCheck(
  db: IssuerDb,
  keys: IdempotencyKeys,
  tipoeCF: string | null,
  idempotency: IdempotencyRequest | null,
): IssueCheck {
  return {
    held: idempotency ? keys.holderOf(idempotency) : null,
    sequence: tipoeCF ? (sequenceOf(db, tipoeCF) ?? null) : null,
  };
}

export function sequencesOf(db: IssuerDb): Sequence[] {
  return db.select().from(sequences).orderBy(sequences.tipoeCF).all();
}

/** Registers (or widens) an authorised range. Numbers already used are never handed out again. */
export function putSequence(
  db: IssuerDb,
  tipoeCF: string,
  range: { rangeFrom: number; rangeTo: number; expiresOn: string },
): Sequence {
  const existing = sequenceOf(db, tipoeCF);
  const nextNumber = Math.max(range.rangeFrom, existing?.nextNumber ?? range.rangeFrom);
  if (nextNumber > range.rangeTo) {
    throw refuse("conflict", {
      detail: `Numbers up to ${encfOf(tipoeCF, nextNumber - 1)} were already used; the new range must end after them.`,
      errors: [
        { path: "/rangeTo", code: "range_already_used", message: "The range ends before the next unused number." },
      ],
    });
  }
  const values = { tipoeCF, ...range, nextNumber, updatedAt: new Date().toISOString() };
  return db
    .insert(sequences)
    .values(values)
    .onConflictDoUpdate({ target: sequences.tipoeCF, set: values })
    .returning()
    .get()!;
}

/** True the first time a notice with this key is asked for, false ever after (events sent once). */
export function noticeOnce(db: IssuerDb, key: string): boolean {
  return db.insert(notices).values({ key }).onConflictDoNothing().returning().get() !== undefined;
}

/** Whether a notice with this key was given (read only). */
export function noticeGiven(db: IssuerDb, key: string): boolean {
  return db.select({ key: notices.key }).from(notices).where(eq(notices.key, key)).get() !== undefined;
}

/** Takes back a notice that could not be sent after all, so the next ask gives it. */
export function forgetNotice(db: IssuerDb, key: string): void {
  db.delete(notices).where(eq(notices.key, key)).run();
}

/** The next e-NCF of the range, or the client's own; "rangeChanged" when the range is not the one validated. */
function takeNumber(db: IssuerDb, request: NumberRequest, now: Date): AllocatedEncf | "rangeChanged" {
  if (!request.givenEncf) return allocateEncf(db, request.tipoeCF, request.today, now, request.rangeExpiresOn);
  const changed =
    request.rangeExpiresOn !== undefined && sequenceOf(db, request.tipoeCF)?.expiresOn !== request.rangeExpiresOn;
  return changed ? "rangeChanged" : takeClientEncf(db, request.givenEncf, request.tipoeCF, request.today, now);
}

/**
 * Numbers one API receipt: the quota unit, the e-NCF (the next one, or the client's own), its
 * place in the receipt index and the request's `Idempotency-Key` (naming the receipt), all in one
 * write. Nothing is taken when any of them fails. The key is checked again here, as `checkIssue`
 * did: a request with the same key may have claimed it since; then this one takes nothing and
 * gets the holder (`held`). A claim the worker found abandoned (`abandoned`) is replaced. A
 * range whose expiry is no longer the one the document was validated against takes nothing.
 */
export function numberReceipt(db: IssuerDb, keys: IdempotencyKeys, request: NumberRequest): NumberAnswer {
  if (request.idempotency) {
    const held = keys.holderOf(request.idempotency);
    if (held && !("encf" in held && held.encf === request.idempotency.abandoned)) return { held };
  }
  assertQuotaLeft(db, request.quota.month, request.quota.limit);
  const numbered = takeNumber(db, request, new Date(request.now));
  if (numbered === "rangeChanged") return { held: null, rangeChanged: true };
  const used = countInvoice(db, request.quota.month);
  // The client's own number may lie anywhere in the index; the sequence's next one is new to it.
  const register = request.givenEncf ? registerNumber : registerNewNumber;
  const month = register(db, request.tipoeCF, numbered.number, request.month);
  // Above 90 % of the month's quota for the first time: the integrator hears it once.
  const { limit } = request.quota;
  const quotaNearLimit =
    used * 10 > limit * 9 && noticeOnce(db, `quota.near_limit:${request.quota.month}`) ? { used, limit } : null;
  if (request.idempotency) keys.claim(request.idempotency, numbered.encf, month);
  return { held: null, numbered: { ...numbered, month, quotaNearLimit } };
}

/** Every block a device was given, oldest first. */
export function leasesOf(db: IssuerDb, deviceId: string): Lease[] {
  return db
    .select(LEASE_COLUMNS)
    .from(deviceLeases)
    .where(eq(deviceLeases.deviceId, deviceId))
    .orderBy(deviceLeases.id)
    .all();
}

/**
 * A receipt a device signed offline: it must lie in one of the device's leases. It is counted
 * against the quota once (it exists already, so it is never refused) and placed in the index.
 */
export function admitDeviceReceipt(
  db: IssuerDb,
  deviceId: string,
  receipt: { tipoeCF: string; number: number; month: string },
  quotaMonth: string,
): Admission {
  const { tipoeCF, number, month } = receipt;
  if (!leaseHolding(db, deviceId, tipoeCF, number)) return { leased: false, month };
  if (numberVoided(db, tipoeCF, number)) return { leased: true, month, voided: true };
  const known = monthOfNumber(db, tipoeCF, number);
  if (known) return { leased: true, month: known };
  countInvoice(db, quotaMonth);
  return { leased: true, month: registerNumber(db, tipoeCF, number, month) };
}

/** A till's batch, admitted one after another in the order given. */
export function admitDeviceReceipts(
  db: IssuerDb,
  deviceId: string,
  receipts: { tipoeCF: string; number: number; month: string }[],
  quotaMonth: string,
): Admission[] {
  return receipts.map((receipt) => admitDeviceReceipt(db, deviceId, receipt, quotaMonth));
}
