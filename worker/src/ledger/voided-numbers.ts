// The ranges DGII voided (ANECF) in a span of time: what the 608 reports for a month.
import { and, asc, gte, lt } from "drizzle-orm";
import { voidedRanges } from "./issuer-tables.ts";
import type { IssuerDb } from "./numbering.ts";
import { monthsOfRange } from "./receipt-index.ts";

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
