// One Durable Object per issuer: everything allocated or counted per issuer. Every method is one
// RPC that runs to completion without awaiting, so the object's single thread makes it atomic:
// two requests can never take the same number or the last unit of the quota.
import { DurableObject } from "cloudflare:workers";
import { and, eq, lt } from "drizzle-orm";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { ApiProblem } from "../http/problem.ts";
import * as issuerTables from "./issuer-tables.ts";
import {
  deviceLeases,
  idempotencyKeys,
  notices,
  receiptIndex,
  sequences,
  usageCounters,
  voidedRanges,
} from "./issuer-tables.ts";
import migrations from "./migrations/issuer/migrations.js";
import {
  allocateEncf,
  assertQuotaLeft,
  countInvoice,
  encfOf,
  invoicesIn,
  leaseBlock,
  leaseHolding,
  leasesOverlapping,
  releaseQuota,
  sequenceOf,
  takeClientEncf,
  type AllocatedEncf,
  type IssuerDb,
} from "./numbering.ts";
import {
  forgetPurchase,
  monthOfNumber,
  months,
  monthsOfRange,
  noteMonth,
  purchaseMonth,
  registerNewNumber,
  registerNumber,
  registerPurchase,
} from "./receipt-index.ts";
import { answer, type Answer } from "./rpc.ts";
import { param, preparedOnce } from "./prepared.ts";
import * as catalog from "./catalog.ts";
import type { CashierRow, PinHash } from "../catalog/cashiers.ts";
import type { Expected } from "../catalog/if-match.ts";
import type { ProductRow, ProductValues } from "../catalog/products.ts";
import {
  deleteSupplierDefault,
  learnSupplierDefault,
  setSupplierDefault,
  supplierDefaultsOf,
  type SupplierDefault,
  type SupplierDefaultValues,
} from "./supplier-defaults.ts";
import { voidedRangesBetween, type VoidedRange } from "./voided-numbers.ts";
import type { Lease, Sequence } from "./schema.ts";
import type { ValidationWarning } from "../http/schemas/receipt-answer.ts";

/** Idempotency keys are kept this long (a client retries within minutes, not months). */
const IDEMPOTENCY_KEY_DAYS = 30;
/** How often expired keys are deleted (a few hours late changes nothing; a delete per receipt does cost). */
const FORGET_KEYS_EVERY_MS = 3_600_000;

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

export interface IdempotencyRequest {
  key: string;
  /** What tells a retry of the same request from a different one with the same key. */
  requestHash: string;
  /** The request's validation warnings, part of its answer (given when it numbers). */
  warnings?: ValidationWarning[];
  /** The e-NCF of an abandoned claim on the key (numbered, never recorded) this request takes over. */
  abandoned?: string;
}

/**
 * A claimed key: the receipt its request numbered (its answer is that receipt's, as it stands), or
 * an answer stored verbatim (keys moved from a 1.7 database).
 */
export type KeyHolder =
  | { encf: string; month: string; warnings: ValidationWarning[] | null; claimedAt: string }
  | { stored: { status: number; response: string } };

/** What issuing reads before it validates a document: the range's state, and who holds the key. */
export interface IssueCheck {
  sequence: Sequence | null;
  held: KeyHolder | null;
}

export type Numbered = AllocatedEncf & { month: string; quotaNearLimit: { used: number; limit: number } | null };

export interface VoidRangeCheck {
  /** The authorised range, when there is one. */
  sequence: Sequence | null;
  /** Device leases overlapping the range. */
  leases: Lease[];
  /** Months holding receipts of the range. */
  months: string[];
}

const idempotencyKeyQuery = preparedOnce((db: IssuerDb) =>
  db
    .select()
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, param("key")))
    .prepare(),
);
const forgetKeysBefore = preparedOnce((db: IssuerDb) =>
  db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, param("expired")))
    .prepare(),
);
const claimKey = preparedOnce((db: IssuerDb) =>
  db
    .insert(idempotencyKeys)
    .values({
      key: param("key"),
      requestHash: param("requestHash"),
      encf: param("encf"),
      month: param("month"),
      warnings: param("warnings"),
    })
    .prepare(),
);

/** Retry-After of an in_progress answer: the first request is signing or waiting for DGII (seconds). */
export const IN_PROGRESS_RETRY_SECONDS = 2;

/**
 * The 409 for a key whose request has not finished: its receipt not numbered-and-recorded yet, or
 * recorded and still being transmitted by it. Never the receipt's passing state (a till would print
 * a contingency copy of a receipt DGII is about to accept).
 */
export function idempotencyKeyInProgress(retryAfter = IN_PROGRESS_RETRY_SECONDS): ApiProblem {
  return new ApiProblem("in_progress", {
    detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
    errors: [{ path: "/headers/Idempotency-Key", code: "idempotency_key_in_progress", message: "In progress." }],
    retryAfter,
  });
}

export class IssuerLedger extends DurableObject<Env> {
  private readonly db: IssuerDb;
  /** When this instance last deleted expired idempotency keys (0: not yet). */
  private keysForgottenAt = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema: issuerTables });
    void ctx.blockConcurrencyWhile(() => migrate(this.db, migrations));
  }

  // ------------------------------------------------------------------ ranges and numbering

  sequences(): Sequence[] {
    return this.db.select().from(sequences).orderBy(sequences.tipoeCF).all();
  }

  /** Registers (or widens) an authorised range. Numbers already used are never handed out again. */
  putSequence(tipoeCF: string, range: { rangeFrom: number; rangeTo: number; expiresOn: string }): Answer<Sequence> {
    return answer(() => {
      const existing = sequenceOf(this.db, tipoeCF);
      const nextNumber = Math.max(range.rangeFrom, existing?.nextNumber ?? range.rangeFrom);
      if (nextNumber > range.rangeTo) {
        throw new ApiProblem("conflict", {
          detail: `Numbers up to ${encfOf(tipoeCF, nextNumber - 1)} were already used; the new range must end after them.`,
          errors: [
            { path: "/rangeTo", code: "range_already_used", message: "The range ends before the next unused number." },
          ],
        });
      }
      const values = { tipoeCF, ...range, nextNumber, updatedAt: new Date().toISOString() };
      return this.db
        .insert(sequences)
        .values(values)
        .onConflictDoUpdate({ target: sequences.tipoeCF, set: values })
        .returning()
        .get()!;
    });
  }

  /**
   * Read only (no write, so no commit): the range a document will be numbered from, and who holds
   * the request's `Idempotency-Key`, if anyone. A key used with a different request is a 409.
   */
  checkIssue(tipoeCF: string | null, idempotency: IdempotencyRequest | null): Answer<IssueCheck> {
    return answer(() => ({
      held: idempotency ? this.holderOfKey(idempotency) : null,
      sequence: tipoeCF ? (sequenceOf(this.db, tipoeCF) ?? null) : null,
    }));
  }

  /**
   * Numbers one API receipt: the quota unit, the e-NCF (the next one, or the client's own), its
   * place in the receipt index and the request's `Idempotency-Key` (naming the receipt), all in one
   * write. Nothing is taken when any of them fails. The key is checked again here, as `checkIssue`
   * did: a request with the same key may have claimed it since; then this one takes nothing and
   * gets the holder (`held`). A claim the worker found abandoned (`abandoned`) is replaced. A
   * range whose expiry is no longer the one the document was validated against takes nothing.
   */
  number(request: NumberRequest): Answer<NumberAnswer> {
    return answer((): NumberAnswer => {
      if (request.idempotency) {
        const held = this.holderOfKey(request.idempotency);
        if (held && !("encf" in held && held.encf === request.idempotency.abandoned)) return { held };
      }
      const now = new Date(request.now);
      assertQuotaLeft(this.db, request.quota.month, request.quota.limit);
      let numbered: AllocatedEncf | "rangeChanged";
      if (request.givenEncf) {
        const changed =
          request.rangeExpiresOn !== undefined &&
          sequenceOf(this.db, request.tipoeCF)?.expiresOn !== request.rangeExpiresOn;
        numbered = changed
          ? "rangeChanged"
          : takeClientEncf(this.db, request.givenEncf, request.tipoeCF, request.today, now);
      } else {
        numbered = allocateEncf(this.db, request.tipoeCF, request.today, now, request.rangeExpiresOn);
      }
      if (numbered === "rangeChanged") return { held: null, rangeChanged: true };
      const used = countInvoice(this.db, request.quota.month);
      // The client's own number may lie anywhere in the index; the sequence's next one is new to it.
      const month = (request.givenEncf ? registerNumber : registerNewNumber)(
        this.db,
        request.tipoeCF,
        numbered.number,
        request.month,
      );
      // Above 90 % of the month's quota for the first time: the integrator hears it once.
      const { limit } = request.quota;
      const quotaNearLimit =
        used * 10 > limit * 9 && this.noticeOnce(`quota.near_limit:${request.quota.month}`) ? { used, limit } : null;
      if (request.idempotency) this.claimKey(request.idempotency, numbered.encf, month);
      return { held: null, numbered: { ...numbered, month, quotaNearLimit } };
    });
  }

  /** True the first time a notice with this key is asked for, false ever after (events sent once). */
  noticeOnce(key: string): boolean {
    return this.db.insert(notices).values({ key }).onConflictDoNothing().returning().get() !== undefined;
  }

  /** Gives back the quota unit of a receipt that failed before it was recorded. */
  releaseQuota(month: string): void {
    releaseQuota(this.db, month);
  }

  invoicesIn(month: string): number {
    return invoicesIn(this.db, month);
  }

  /** A block of numbers for a point-of-sale device. */
  lease(deviceId: string, tipoeCF: string, size: number, today: string): Answer<Lease> {
    return answer(() => leaseBlock(this.db, deviceId, tipoeCF, size, today, new Date()));
  }

  /** Every block a device was given, oldest first. */
  leasesOf(deviceId: string): Lease[] {
    return this.db
      .select({
        tipoeCF: deviceLeases.tipoeCF,
        rangeFrom: deviceLeases.rangeFrom,
        rangeTo: deviceLeases.rangeTo,
        expiresOn: deviceLeases.expiresOn,
      })
      .from(deviceLeases)
      .where(eq(deviceLeases.deviceId, deviceId))
      .orderBy(deviceLeases.id)
      .all();
  }

  /**
   * A receipt a device signed offline: it must lie in one of the device's leases. It is counted
   * against the quota once (it exists already, so it is never refused) and placed in the index.
   */
  admitDeviceReceipt(
    deviceId: string,
    tipoeCF: string,
    number: number,
    month: string,
    quotaMonth: string,
  ): { leased: boolean; month: string } {
    if (!leaseHolding(this.db, deviceId, tipoeCF, number)) return { leased: false, month };
    const known = monthOfNumber(this.db, tipoeCF, number);
    if (known) return { leased: true, month: known };
    countInvoice(this.db, quotaMonth);
    return { leased: true, month: registerNumber(this.db, tipoeCF, number, month) };
  }

  /** A till's batch in one RPC, admitted one after another in the order given. */
  admitDeviceReceipts(
    deviceId: string,
    receipts: { tipoeCF: string; number: number; month: string }[],
    quotaMonth: string,
  ): { leased: boolean; month: string }[] {
    return receipts.map((r) => this.admitDeviceReceipt(deviceId, r.tipoeCF, r.number, r.month, quotaMonth));
  }

  // ---------------------------------------------------------------------------- idempotency
  // An `Idempotency-Key` is claimed by the request that numbers a receipt, in the numbering write
  // (`number`), and names that receipt: a later request with the key gets the receipt's answer as
  // it stands (the worker reads it from its month object), never a second receipt. Nothing more is
  // written when the answer is given, so a request that dies after recording its receipt leaves
  // nothing half done. The same key with a different body is a 409.

  /** Who holds a key; null when it is free. Throws the 409 for a different request. */
  private holderOfKey({ key, requestHash }: IdempotencyRequest): KeyHolder | null {
    const row = idempotencyKeyQuery(this.db).get({ key });
    if (!row) return null;
    if (row.requestHash !== requestHash) {
      throw new ApiProblem("conflict", {
        detail: "This Idempotency-Key was already used with a different request body.",
        errors: [
          {
            path: "/headers/Idempotency-Key",
            code: "idempotency_key_reused",
            message: "Different request for the same key.",
          },
        ],
      });
    }
    if (row.status !== null && row.response !== null) return { stored: { status: row.status, response: row.response } };
    if (row.encf === null || row.month === null) throw idempotencyKeyInProgress();
    return {
      encf: row.encf,
      month: row.month,
      warnings: row.warnings === null ? null : (JSON.parse(row.warnings) as ValidationWarning[]),
      claimedAt: row.createdAt,
    };
  }

  /** Takes a free key (checked by `holderOfKey` in the same write) for a receipt, and forgets expired keys (hourly). */
  private claimKey({ key, requestHash, warnings, abandoned }: IdempotencyRequest, encf: string, month: string): void {
    const now = Date.now();
    if (now - this.keysForgottenAt >= FORGET_KEYS_EVERY_MS) {
      forgetKeysBefore(this.db).run({ expired: new Date(now - IDEMPOTENCY_KEY_DAYS * 86_400_000).toISOString() });
      this.keysForgottenAt = now;
    }
    if (abandoned) this.releaseIdempotencyKey(key, abandoned);
    claimKey(this.db).run({
      key,
      requestHash,
      encf,
      month,
      warnings: warnings?.length ? JSON.stringify(warnings) : null,
    });
  }

  /**
   * A request that failed after it claimed its key, before its receipt was recorded, gives the key
   * back, so a corrected retry works (only its own claim: the key naming its e-NCF).
   */
  releaseIdempotencyKey(key: string, encf: string): void {
    this.db
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.key, key), eq(idempotencyKeys.encf, encf)))
      .run();
  }

  // ------------------------------------------------------------------------- where things are

  /** The month object of a receipt, or null when the number was never recorded. */
  monthOf(encf: string): string | null {
    return /^E\d{12}$/.test(encf) ? monthOfNumber(this.db, encf.slice(1, 3), Number(encf.slice(3))) : null;
  }

  /** The month object of each e-NCF (null when never recorded), for a question about many. */
  monthsOf(encfs: string[]): (string | null)[] {
    return encfs.map((encf) => this.monthOf(encf));
  }

  months(from?: string, until?: string): string[] {
    return months(this.db, from, until);
  }

  noteMonth(month: string): void {
    noteMonth(this.db, month);
  }

  registerPurchase(rncEmisor: string, encf: string, month: string): string {
    return registerPurchase(this.db, rncEmisor, encf, month);
  }

  purchaseMonth(rncEmisor: string, encf: string): string | null {
    return purchaseMonth(this.db, rncEmisor, encf);
  }

  forgetPurchase(rncEmisor: string, encf: string): void {
    forgetPurchase(this.db, rncEmisor, encf);
  }

  // --------------------------------------------------------------- 606 defaults per supplier

  supplierDefaults(rncs: string[]): SupplierDefault[] {
    return supplierDefaultsOf(this.db, rncs);
  }

  setSupplierDefault(rncEmisor: string, values: SupplierDefaultValues): SupplierDefault {
    return setSupplierDefault(this.db, rncEmisor, values);
  }

  learnSupplierDefault(rncEmisor: string, values: Partial<SupplierDefaultValues>): SupplierDefault | null {
    return learnSupplierDefault(this.db, rncEmisor, values);
  }

  deleteSupplierDefault(rncEmisor: string): boolean {
    return deleteSupplierDefault(this.db, rncEmisor);
  }

  /** Ranges DGII voided in [from, until) (UTC instants), with the months holding their receipts (608). */
  voidedRangesBetween(from: string, until: string): VoidedRange[] {
    return voidedRangesBetween(this.db, from, until);
  }

  // -------------------------------------------------------------------------------- voiding

  /** What the issuer object knows about a range to void: its sequence, leases and months. */
  voidRangeCheck(tipoeCF: string, from: number, to: number): VoidRangeCheck {
    return {
      sequence: sequenceOf(this.db, tipoeCF) ?? null,
      leases: leasesOverlapping(this.db, tipoeCF, from, to),
      months: monthsOfRange(this.db, tipoeCF, from, to),
    };
  }

  /**
   * Takes a range's unused tail out of the sequence, so no request or device can be handed those
   * numbers while DGII is asked. Null when the range lies wholly below the unused numbers,
   * "gap" when it starts above them.
   */
  takeTail(tipoeCF: string, from: number, to: number): { before: number; after: number } | null | "gap" {
    const row = sequenceOf(this.db, tipoeCF);
    if (!row || row.nextNumber < from) return "gap";
    if (row.nextNumber > to) return null;
    this.db
      .update(sequences)
      .set({ nextNumber: to + 1, updatedAt: new Date().toISOString() })
      .where(eq(sequences.tipoeCF, tipoeCF))
      .run();
    return { before: row.nextNumber, after: to + 1 };
  }

  /** Gives a tail back when nobody took a number after it. */
  giveBackTail(tipoeCF: string, tail: { before: number; after: number }): void {
    this.db
      .update(sequences)
      .set({ nextNumber: tail.before })
      .where(and(eq(sequences.tipoeCF, tipoeCF), eq(sequences.nextNumber, tail.after)))
      .run();
  }

  /** Ranges DGII voided: they are never listed as unused again. */
  noteVoided(tipoeCF: string, firstNumber: number, lastNumber: number): void {
    this.db.insert(voidedRanges).values({ tipoeCF, firstNumber, lastNumber }).onConflictDoNothing().run();
  }

  /**
   * Everything the issuer object knows about the numbers handed out of a type: the range, the runs
   * registered for receipts (by month), the device leases and the voided ranges. The month
   * objects say which registered numbers really hold a receipt (issuing/unused-numbers.ts).
   */
  numbersHandedOut(tipoeCF: string): {
    sequence: Sequence | null;
    runs: { first: number; last: number; month: string }[];
    covered: [number, number][];
  } {
    const runs = this.db
      .select({ first: receiptIndex.firstNumber, last: receiptIndex.lastNumber, month: receiptIndex.month })
      .from(receiptIndex)
      .where(eq(receiptIndex.tipoeCF, tipoeCF))
      .all();
    const leases = leasesOverlapping(this.db, tipoeCF, 1, Number.MAX_SAFE_INTEGER).map((l): [number, number] => [
      l.rangeFrom,
      l.rangeTo,
    ]);
    const voided = this.db
      .select({ first: voidedRanges.firstNumber, last: voidedRanges.lastNumber })
      .from(voidedRanges)
      .where(eq(voidedRanges.tipoeCF, tipoeCF))
      .all()
      .map((v): [number, number] => [v.first, v.last]);
    return { sequence: sequenceOf(this.db, tipoeCF) ?? null, runs, covered: [...leases, ...voided] };
  }

  // ---------------------------------------------------------------------- the shared catalogue

  catalogVersion(): number {
    return catalog.currentCatalogVersion(this.db);
  }

  product(id: string): ProductRow | null {
    return catalog.productById(this.db, id) ?? null;
  }

  products(query: catalog.ProductQuery): { rows: ProductRow[]; total: number } {
    return catalog.listProducts(this.db, query);
  }

  createProduct(values: ProductValues): Answer<ProductRow> {
    return answer(() => catalog.createProduct(this.db, values, new Date().toISOString()));
  }

  /** Changes a product only if it is still at the version If-Match named (checked and written in one step). */
  updateProduct(id: string, changes: Partial<ProductValues>, expected: Expected, ifMatch: string): Answer<ProductRow> {
    return answer(() => catalog.updateProduct(this.db, id, changes, expected, ifMatch, new Date().toISOString()));
  }

  /** A whole CSV file in one transaction: every row or none (`lines`: the file line of each row, for a problem). */
  importProducts(rows: ProductValues[], lines: number[]): Answer<catalog.ImportOutcome> {
    return answer(() =>
      this.ctx.storage.transactionSync(() => catalog.importProducts(this.db, rows, lines, new Date().toISOString())),
    );
  }

  productsAfter(afterCode: string | null, limit: number): ProductRow[] {
    return catalog.productsAfter(this.db, afterCode, limit);
  }

  cashiers(): CashierRow[] {
    return catalog.listCashiers(this.db);
  }

  createCashier(name: string, pin: PinHash): CashierRow {
    return catalog.createCashier(this.db, name, pin, new Date().toISOString());
  }

  updateCashier(id: string, changes: { name?: string; active?: boolean; pin?: PinHash }): Answer<CashierRow> {
    return answer(() => catalog.updateCashier(this.db, id, changes, new Date().toISOString()));
  }

  /** What a till pulls: the changes after `since`, products and cashiers in version order. */
  catalogChanges(since: number, limit: number): catalog.CatalogChanges {
    return catalog.catalogChanges(this.db, since, limit);
  }

  // ------------------------------------------------------------------------------ migration

  /** Rows moved from the D1 ledger (`ledger:migrate`); running it again changes nothing. */
  importRows(rows: {
    sequences: Sequence[];
    usageCounters: { month: string; invoices: number }[];
    idempotencyKeys: (typeof idempotencyKeys.$inferInsert)[];
    deviceLeases: (typeof deviceLeases.$inferInsert)[];
    receipts: { tipoeCF: string; number: number; month: string }[];
    purchases: { rncEmisor: string; encf: string; month: string }[];
    months: string[];
  }): void {
    this.ctx.storage.transactionSync(() => {
      for (const row of rows.sequences) this.db.insert(sequences).values(row).onConflictDoNothing().run();
      for (const row of rows.usageCounters) this.db.insert(usageCounters).values(row).onConflictDoNothing().run();
      for (const row of rows.idempotencyKeys) this.db.insert(idempotencyKeys).values(row).onConflictDoNothing().run();
      for (const { id: _legacyId, ...row } of rows.deviceLeases) {
        const known = this.db
          .select()
          .from(deviceLeases)
          .where(
            and(
              eq(deviceLeases.deviceId, row.deviceId),
              eq(deviceLeases.tipoeCF, row.tipoeCF),
              eq(deviceLeases.rangeFrom, row.rangeFrom),
            ),
          )
          .get();
        if (!known) this.db.insert(deviceLeases).values(row).run();
      }
      for (const r of rows.receipts) registerNumber(this.db, r.tipoeCF, r.number, r.month);
      for (const p of rows.purchases) registerPurchase(this.db, p.rncEmisor, p.encf, p.month);
      for (const month of rows.months) noteMonth(this.db, month);
    });
  }
}
