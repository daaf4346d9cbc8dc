// Rows moved from the D1 ledger into a month object (`ledger:migrate`); running it again
// changes nothing.
import { and, eq } from "drizzle-orm";
import { isFinal } from "./estado.ts";
import { auditLog, purchases, receipts } from "./month-tables.ts";
import type { MonthDb } from "./month-receipts.ts";
import type { AuditEntry, NewPurchase, NewReceipt } from "./month-row-types.ts";

export interface MonthRows {
  receipts: NewReceipt[];
  purchases: NewPurchase[];
  audit: AuditEntry[];
}

export function importMonthRows(db: MonthDb, rows: MonthRows): void {
  for (const row of rows.receipts) {
    // A receipt still pending in D1 is due at once here: the alarm finishes it.
    const pending = !isFinal(row.status);
    db.insert(receipts)
      .values({ ...row, claimedUntil: null, nextAttemptAt: pending ? new Date().toISOString() : null })
      .onConflictDoNothing()
      .run();
  }
  for (const row of rows.purchases) db.insert(purchases).values(row).onConflictDoNothing().run();
  for (const row of rows.audit) {
    const known = db
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(
        and(eq(auditLog.requestId, row.requestId), eq(auditLog.createdAt, row.createdAt!), eq(auditLog.code, row.code)),
      )
      .get();
    if (!known) db.insert(auditLog).values(row).run();
  }
}

/** What one bulk call loads: rows `from` .. `from + count - 1` of the month's receipts or purchases. */
export interface BenchRowsSpec {
  companyId: string;
  /** The issuer's RNC (the XML keys and timbres name it). */
  rnc: string;
  /** yyyy-MM */
  month: string;
  kind: "receipts" | "purchases";
  from: number;
  count: number;
  /** How many receipts (or purchases) the whole month will have: spreads them over its days. */
  total: number;
}
