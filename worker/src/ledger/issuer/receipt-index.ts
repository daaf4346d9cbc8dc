// Which month object holds a receipt (or a purchase), kept in the issuer's object. Receipts are
// indexed as runs of consecutive numbers of one type in one month: numbers are handed out in
// order, so a run grows by one with each receipt and the index stays a few rows per month and
// type (plus one per device lease) instead of a row per receipt.
import { and, asc, eq, gte, lte } from "drizzle-orm";
import type { IssuerDb } from "./encf-allocation.ts";
import { ledgerMonths, purchaseIndex, receiptIndex } from "./issuer-tables.ts";
import { param, preparedOnce } from "../prepared.ts";

const monthOfNumberQuery = preparedOnce((db: IssuerDb) =>
  db
    .select({ month: receiptIndex.month })
    .from(receiptIndex)
    .where(
      and(
        eq(receiptIndex.tipoeCF, param("tipoeCF")),
        lte(receiptIndex.firstNumber, param("number")),
        gte(receiptIndex.lastNumber, param("number")),
      ),
    )
    .prepare(),
);

/** The month a receipt number lives in, if it was ever registered. */
export function monthOfNumber(db: IssuerDb, tipoeCF: string, number: number): string | null {
  return monthOfNumberQuery(db).get({ tipoeCF, number })?.month ?? null;
}

/** The month object of a receipt by its e-NCF, or null when the number was never recorded. */
export function monthOfEncf(db: IssuerDb, encf: string): string | null {
  return /^E\d{12}$/.test(encf) ? monthOfNumber(db, encf.slice(1, 3), Number(encf.slice(3))) : null;
}

export function monthsOfEncfs(db: IssuerDb, encfs: string[]): (string | null)[] {
  return encfs.map((encf) => monthOfEncf(db, encf));
}

/** Every month holding a number of [from, to] of one type (for voiding a range). */
export function monthsOfRange(db: IssuerDb, tipoeCF: string, from: number, to: number): string[] {
  const runs = db
    .selectDistinct({ month: receiptIndex.month })
    .from(receiptIndex)
    .where(
      and(eq(receiptIndex.tipoeCF, tipoeCF), lte(receiptIndex.firstNumber, to), gte(receiptIndex.lastNumber, from)),
    )
    .all();
  return runs.map((r) => r.month);
}

const runEndingAt = preparedOnce((db: IssuerDb) =>
  db
    .select()
    .from(receiptIndex)
    .where(
      and(
        eq(receiptIndex.tipoeCF, param("tipoeCF")),
        eq(receiptIndex.lastNumber, param("number")),
        eq(receiptIndex.month, param("month")),
      ),
    )
    .prepare(),
);
const runStartingAt = preparedOnce((db: IssuerDb) =>
  db
    .select()
    .from(receiptIndex)
    .where(
      and(
        eq(receiptIndex.tipoeCF, param("tipoeCF")),
        eq(receiptIndex.firstNumber, param("number")),
        eq(receiptIndex.month, param("month")),
      ),
    )
    .prepare(),
);
const extendRun = preparedOnce((db: IssuerDb) =>
  db
    .update(receiptIndex)
    .set({ lastNumber: param("lastNumber") })
    .where(and(eq(receiptIndex.tipoeCF, param("tipoeCF")), eq(receiptIndex.firstNumber, param("firstNumber"))))
    .prepare(),
);

/**
 * Registers a receipt number in `month`, unless it is registered already: then the month it was
 * registered in wins (a receipt is never in two months). Returns the month that holds it.
 */
export function registerNumber(db: IssuerDb, tipoeCF: string, number: number, month: string): string {
  const existing = monthOfNumber(db, tipoeCF, number);
  if (existing) return existing;
  noteMonth(db, month);
  const before = runEndingAt(db).get({ tipoeCF, number: number - 1, month });
  const after = runStartingAt(db).get({ tipoeCF, number: number + 1, month });
  if (before && after) {
    // The number closes the gap between two runs of the same month: they become one.
    db.delete(receiptIndex)
      .where(and(eq(receiptIndex.tipoeCF, tipoeCF), eq(receiptIndex.firstNumber, after.firstNumber)))
      .run();
    db.update(receiptIndex)
      .set({ lastNumber: after.lastNumber })
      .where(and(eq(receiptIndex.tipoeCF, tipoeCF), eq(receiptIndex.firstNumber, before.firstNumber)))
      .run();
  } else if (before) {
    // The common case: the next number of the run.
    extendRun(db).run({ tipoeCF, firstNumber: before.firstNumber, lastNumber: number });
  } else if (after) {
    db.update(receiptIndex)
      .set({ firstNumber: number })
      .where(and(eq(receiptIndex.tipoeCF, tipoeCF), eq(receiptIndex.firstNumber, after.firstNumber)))
      .run();
  } else {
    db.insert(receiptIndex).values({ tipoeCF, firstNumber: number, lastNumber: number, month }).run();
  }
  return month;
}

const extendRunEndingBefore = preparedOnce((db: IssuerDb) =>
  db
    .update(receiptIndex)
    .set({ lastNumber: param("number") })
    .where(
      and(
        eq(receiptIndex.tipoeCF, param("tipoeCF")),
        eq(receiptIndex.lastNumber, param("previous")),
        eq(receiptIndex.month, param("month")),
      ),
    )
    .returning({ firstNumber: receiptIndex.firstNumber })
    .prepare(),
);

/**
 * Registers the number the sequence has just handed out. Nothing at or above the sequence's next
 * number was ever handed out, so it is registered nowhere and no run starts after it: the common
 * case, the next number of this month's run, is one update.
 */
export function registerNewNumber(db: IssuerDb, tipoeCF: string, number: number, month: string): string {
  if (extendRunEndingBefore(db).get({ tipoeCF, number, previous: number - 1, month })) return month;
  return registerNumber(db, tipoeCF, number, month);
}

/** Registers a purchase in `month` unless the supplier's e-NCF is registered; returns its month. */
export function registerPurchase(db: IssuerDb, rncEmisor: string, encf: string, month: string): string {
  const existing = purchaseMonth(db, rncEmisor, encf);
  if (existing) return existing;
  noteMonth(db, month);
  db.insert(purchaseIndex).values({ rncEmisor, encf, month }).run();
  return month;
}

export function purchaseMonth(db: IssuerDb, rncEmisor: string, encf: string): string | null {
  return (
    db
      .select({ month: purchaseIndex.month })
      .from(purchaseIndex)
      .where(and(eq(purchaseIndex.rncEmisor, rncEmisor), eq(purchaseIndex.encf, encf)))
      .get()?.month ?? null
  );
}

/** Forgets a purchase whose recording failed (so the supplier's retry is not a duplicate). */
export function forgetPurchase(db: IssuerDb, rncEmisor: string, encf: string): void {
  db.delete(purchaseIndex)
    .where(and(eq(purchaseIndex.rncEmisor, rncEmisor), eq(purchaseIndex.encf, encf)))
    .run();
}

const noteMonthQuery = preparedOnce((db: IssuerDb) =>
  db
    .insert(ledgerMonths)
    .values({ month: param("month") })
    .onConflictDoNothing()
    .prepare(),
);

export function noteMonth(db: IssuerDb, month: string): void {
  noteMonthQuery(db).run({ month });
}

/** Months with something in them, oldest first, optionally bounded (yyyy-MM, inclusive). */
export function months(db: IssuerDb, from?: string, until?: string): string[] {
  const bounds = [
    from ? gte(ledgerMonths.month, from) : undefined,
    until ? lte(ledgerMonths.month, until) : undefined,
  ].filter((b) => b !== undefined);
  return db
    .select()
    .from(ledgerMonths)
    .where(bounds.length ? and(...bounds) : undefined)
    .orderBy(asc(ledgerMonths.month))
    .all()
    .map((r) => r.month);
}
