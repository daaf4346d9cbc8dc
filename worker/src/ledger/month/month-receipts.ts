// A month object's receipts as rows: recorded once per e-NCF, held by one worker at a time
// (`claimedUntil`), and due for the alarm at `nextAttemptAt`. Plain storage: what a change means
// (events, delivery to the buyer) is decided in after-dgii/follow-up.ts.
import { and, asc, eq, getTableColumns, gte, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { isFinal } from "./estado.ts";
import type * as monthTables from "./month-tables.ts";
import { receipts } from "./month-tables.ts";
import { encfOf } from "../issuer/encf-allocation.ts";
import { param, preparedOnce } from "../prepared.ts";
import type { NewReceipt, Receipt, ReceiptChanges } from "./month-row-types.ts";

export type MonthDb = DrizzleSqliteDODatabase<typeof monthTables>;

/** How long a request holds a receipt it is transmitting before the alarm may take it over. */
export const CLAIM_MS = 60_000;
/** Receipts (and tasks) the alarm moves forward per run; the rest are due again at once. */
export const ALARM_BATCH = 25;
export const PENDING = ["signed", "contingency", "in_process"] as const;

/** Back-off between the alarm's attempts at one receipt: 1 s, 2 s, 4 s, 8 s, … capped at 10 minutes. */
export function backoffMs(retries: number): number {
  return Math.min(600, 2 ** Math.max(0, retries)) * 1000;
}

/**
 * In contingency and never sent: all the alarm can do for it is send it, once DGII's status
 * service says the environment is up again.
 */
export function awaitsFirstSend(receipt: Receipt): boolean {
  return receipt.status === "contingency" && !receipt.trackId && receipt.sendAttempts === 0;
}

// Every column of a new receipt but created_at (SQLite's clock sets it): a value missing from
// the row takes the column's default, as drizzle's own insert would give it.
const receiptColumns = Object.entries(getTableColumns(receipts)).filter(([field]) => field !== "createdAt");
const insertReceipt = preparedOnce((db: MonthDb) =>
  db
    .insert(receipts)
    .values(Object.fromEntries(receiptColumns.map(([field]) => [field, param(field)])) as unknown as NewReceipt)
    .onConflictDoNothing()
    .returning()
    .prepare(),
);
const receiptParams = (row: NewReceipt): Record<string, unknown> =>
  Object.fromEntries(
    receiptColumns.map(([field, column]) => [field, (row as Record<string, unknown>)[field] ?? column.default ?? null]),
  );
const receiptByEncf = preparedOnce((db: MonthDb) =>
  db
    .select()
    .from(receipts)
    .where(eq(receipts.encf, param("encf")))
    .prepare(),
);
const receiptWithId = preparedOnce((db: MonthDb) =>
  db
    .select()
    .from(receipts)
    .where(eq(receipts.id, param("id")))
    .prepare(),
);
/**
 * Nobody holds the receipt at `now`: a claim lapses at its time, not a moment after, as the alarm
 * computes it (an alarm set for the time a claim lapses finds that receipt due).
 */
const unheldAt = (now: SQL | string) => or(isNull(receipts.claimedUntil), lte(receipts.claimedUntil, now));
const postponeUnheld = preparedOnce((db: MonthDb) =>
  db
    .update(receipts)
    .set({ retries: param("retries"), nextAttemptAt: param("nextAttemptAt") })
    .where(and(eq(receipts.id, param("id")), unheldAt(param("now"))))
    .prepare(),
);
const dueReceiptsQuery = preparedOnce((db: MonthDb) =>
  db
    .select()
    .from(receipts)
    .where(
      and(inArray(receipts.status, [...PENDING]), lte(receipts.nextAttemptAt, param("now")), unheldAt(param("now"))),
    )
    // Ties (a till's batch is due at one instant) go in the order they were recorded.
    .orderBy(asc(receipts.nextAttemptAt), asc(sql`rowid`))
    .limit(ALARM_BATCH)
    .prepare(),
);
const claimUnheld = preparedOnce((db: MonthDb) =>
  db
    .update(receipts)
    .set({ claimedUntil: param("claimedUntil") })
    .where(and(eq(receipts.id, param("id")), unheldAt(param("now"))))
    .returning()
    .prepare(),
);
const releaseReceipt = preparedOnce((db: MonthDb) =>
  db
    .update(receipts)
    .set({ claimedUntil: null, nextAttemptAt: param("nextAttemptAt") })
    .where(eq(receipts.id, param("id")))
    .returning()
    .prepare(),
);

function insertReceiptRow(db: MonthDb, values: NewReceipt): Receipt | null {
  return db.insert(receipts).values(values).onConflictDoNothing().returning().get() ?? null;
}

/** A receipt held by its request until `claimedUntil` (epoch ms), due then; null when its e-NCF is here already. */
export function insertHeld(db: MonthDb, values: NewReceipt, claimedUntil: number): Receipt | null {
  const until = new Date(claimedUntil).toISOString();
  return insertReceiptRow(db, { ...values, status: "signed", claimedUntil: until, nextAttemptAt: until });
}

/** A receipt nobody holds, due at `due` (epoch ms) for the alarm; null when its e-NCF is here already. */
export function insertDue(db: MonthDb, values: NewReceipt, due: number): Receipt | null {
  return insertReceiptRow(db, {
    ...values,
    status: "signed",
    claimedUntil: null,
    nextAttemptAt: new Date(due).toISOString(),
  });
}

/**
 * A receipt DGII cannot take now, in contingency at once and due at `due`, through the prepared
 * statement every contingency receipt takes; null when its e-NCF is here already.
 */
export function insertInContingency(
  db: MonthDb,
  values: NewReceipt,
  dgiiMensajes: string,
  due: number,
  now: number,
): Receipt | null {
  const row = { ...values, status: "contingency" as const, dgiiMensajes, claimedUntil: null };
  const params = receiptParams({
    ...row,
    nextAttemptAt: new Date(due).toISOString(),
    updatedAt: new Date(now).toISOString(),
  });
  return insertReceipt(db).get(params) ?? null;
}

export function receiptOf(db: MonthDb, encf: string): Receipt | null {
  return receiptByEncf(db).get({ encf }) ?? null;
}

export function receiptById(db: MonthDb, id: string): Receipt | null {
  return receiptWithId(db).get({ id }) ?? null;
}

/** The receipts of these e-NCF that are here (in no particular order). */
export function receiptsByEncf(db: MonthDb, encfs: string[]): Receipt[] {
  const found: Receipt[] = [];
  // A Durable Object's SQLite binds at most 100 parameters per statement.
  for (let i = 0; i < encfs.length; i += 100)
    found.push(
      ...db
        .select()
        .from(receipts)
        .where(inArray(receipts.encf, encfs.slice(i, i + 100)))
        .all(),
    );
  return found;
}

export function updateReceiptRow(db: MonthDb, id: string, changes: ReceiptChanges): Receipt {
  return db
    .update(receipts)
    .set({ ...changes, updatedAt: new Date().toISOString() })
    .where(eq(receipts.id, id))
    .returning()
    .get()!;
}

/** Marks a receipt's delivery to its buyer as pending (its task is queued with it). */
export function markDeliveryPending(db: MonthDb, id: string): Receipt {
  return db.update(receipts).set({ deliveryStatus: "pendiente" }).where(eq(receipts.id, id)).returning().get()!;
}

/** Takes a receipt for CLAIM_MS unless someone holds it. */
export function claimReceipt(db: MonthDb, id: string, now: Date): Receipt | null {
  return (
    claimUnheld(db).get({
      id,
      claimedUntil: new Date(now.getTime() + CLAIM_MS).toISOString(),
      now: now.toISOString(),
    }) ?? null
  );
}

/** Lets go of a receipt: a final one is done, a pending one due after its back-off. */
export function releaseReceiptRow(db: MonthDb, id: string): Receipt | null {
  const row = receiptById(db, id);
  if (!row) return null;
  const nextAttemptAt = isFinal(row.status) ? null : new Date(Date.now() + backoffMs(row.retries)).toISOString();
  return releaseReceipt(db).get({ id, nextAttemptAt })!;
}

/** The next turn of a receipt nobody holds at `now`, `retries` counted (nothing if someone holds it). */
export function postponeReceipt(db: MonthDb, id: string, retries: number, nextAttemptAt: number, now: Date): void {
  postponeUnheld(db).run({ id, retries, nextAttemptAt: new Date(nextAttemptAt).toISOString(), now: now.toISOString() });
}

/** Pending receipts due at `now` that nobody holds, oldest turn first (at most ALARM_BATCH). */
export function dueReceipts(db: MonthDb, now: Date): Receipt[] {
  return dueReceiptsQuery(db).all({ now: now.toISOString() });
}

export function countAttempt(db: MonthDb, id: string): void {
  db.update(receipts)
    .set({ retries: sql`${receipts.retries} + 1` })
    .where(eq(receipts.id, id))
    .run();
}

/** Receipts of one type whose e-NCF lies in [desde, hasta] (for voiding). */
export function receiptsIn(db: MonthDb, tipoeCF: string, desde: string, hasta: string): Receipt[] {
  return db
    .select()
    .from(receipts)
    .where(and(eq(receipts.tipoeCF, tipoeCF), gte(receipts.encf, desde), lte(receipts.encf, hasta)))
    .all();
}

/** Claimed receipts that were never sent become Anulado once DGII voided their range. */
export function markVoided(db: MonthDb, ids: string[]): number {
  if (!ids.length) return 0;
  return db
    .update(receipts)
    .set({ status: "voided", claimedUntil: null, nextAttemptAt: null, updatedAt: new Date().toISOString() })
    .where(and(inArray(receipts.id, ids), eq(receipts.sendAttempts, 0)))
    .returning({ id: receipts.id })
    .all().length;
}

/** The buyer's commercial approval (ACECF): the first one is the one on record; null if one was. */
export function setApproval(
  db: MonthDb,
  id: string,
  approval: { approvalStatus: string; approvalReason: string | null; approvalAt: string },
): Receipt | null {
  return (
    db
      .update(receipts)
      .set({ ...approval, updatedAt: new Date().toISOString() })
      .where(and(eq(receipts.id, id), isNull(receipts.approvalStatus)))
      .returning()
      .get() ?? null
  );
}

/**
 * The numbers of these runs that hold a receipt here, as intervals. A run whose count matches
 * its length is answered from the e-NCF index alone; only a run with holes is listed.
 */
export function heldIn(db: MonthDb, tipoeCF: string, runs: [number, number][]): [number, number][] {
  const held: [number, number][] = [];
  for (const [first, last] of runs) {
    const [from, to] = [encfOf(tipoeCF, first), encfOf(tipoeCF, last)];
    const inRun = and(gte(receipts.encf, from), lte(receipts.encf, to));
    const count = db.select({ n: sql<number>`count(*)` }).from(receipts).where(inRun).get()?.n ?? 0;
    if (count === last - first + 1) {
      held.push([first, last]);
      continue;
    }
    const listed = db.select({ encf: receipts.encf }).from(receipts).where(inRun).orderBy(receipts.encf).all();
    for (const { encf } of listed) {
      const n = Number(encf.slice(3));
      const previous = held[held.length - 1];
      if (previous && previous[1] === n - 1) previous[1] = n;
      else held.push([n, n]);
    }
  }
  return held;
}

/** Credit and debit notes DGII accepted against `encf`. */
export function acceptedNotesOf(db: MonthDb, encf: string): Receipt[] {
  return db
    .select()
    .from(receipts)
    .where(and(eq(receipts.ncfModificado, encf), inArray(receipts.status, ["accepted", "conditional"])))
    .all();
}
