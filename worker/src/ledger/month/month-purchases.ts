// A month object's purchases (supplier e-CF we received) and audit entries as rows.
import { and, asc, eq, isNull, lte, or, sql } from "drizzle-orm";
import { auditLog, purchases } from "./month-tables.ts";
import type { MonthDb } from "./month-receipts.ts";
import { param, preparedOnce } from "../prepared.ts";
import type { AuditEntry, NewPurchase, Purchase } from "./month-row-types.ts";

/** Inserts a purchase; null when the supplier's e-NCF is here already. */
export function insertPurchase(db: MonthDb, values: NewPurchase): Purchase | null {
  return db.insert(purchases).values(values).onConflictDoNothing().returning().get() ?? null;
}

export function purchaseById(db: MonthDb, id: string): Purchase | null {
  return db.select().from(purchases).where(eq(purchases.id, id)).get() ?? null;
}

export function updatePurchase(db: MonthDb, id: string, changes: Partial<NewPurchase>): Purchase | null {
  return db.update(purchases).set(changes).where(eq(purchases.id, id)).returning().get() ?? null;
}

/**
 * Records our commercial approval unless a different one is on record (the first stands; the same
 * one again is recorded anew, as its ACECF is): null when one was decided otherwise.
 */
export function decidePurchase(db: MonthDb, id: string, changes: Partial<NewPurchase>): Purchase | null {
  const undecided = isNull(purchases.approvalStatus);
  const same = changes.approvalStatus ? or(undecided, eq(purchases.approvalStatus, changes.approvalStatus)) : undecided;
  return (
    db
      .update(purchases)
      .set(changes)
      .where(and(eq(purchases.id, id), same))
      .returning()
      .get() ?? null
  );
}

/** Purchases whose check with DGII is due at `now`, the longest waiting first. */
export function purchasesDueForCheck(db: MonthDb, now: Date, limit: number): Purchase[] {
  return db
    .select()
    .from(purchases)
    .where(lte(purchases.dgiiNextCheckAt, now.toISOString()))
    .orderBy(asc(purchases.dgiiNextCheckAt))
    .limit(limit)
    .all();
}

/** What one check with DGII found, counted. */
export function recordPurchaseCheck(
  db: MonthDb,
  id: string,
  outcome: { dgiiStatus: Purchase["dgiiStatus"]; dgiiNextCheckAt: string | null },
  now: Date,
): Purchase | null {
  return (
    db
      .update(purchases)
      .set({
        dgiiStatus: outcome.dgiiStatus,
        dgiiNextCheckAt: outcome.dgiiNextCheckAt,
        dgiiChecks: sql`${purchases.dgiiChecks} + 1`,
        dgiiCheckedAt: now.toISOString(),
      })
      .where(eq(purchases.id, id))
      .returning()
      .get() ?? null
  );
}

/** The accountant counts a purchase DGII does not confirm (never one DGII rejected). */
export function overridePurchaseConfirmation(
  db: MonthDb,
  id: string,
  override: { reason: string; by: string },
  now: Date,
): Purchase | null {
  return (
    db
      .update(purchases)
      .set({ dgiiOverrideReason: override.reason, dgiiOverrideBy: override.by, dgiiOverrideAt: now.toISOString() })
      .where(and(eq(purchases.id, id), sql`${purchases.dgiiStatus} <> 'rejected'`))
      .returning()
      .get() ?? null
  );
}

export function deletePurchase(db: MonthDb, id: string): void {
  db.delete(purchases).where(eq(purchases.id, id)).run();
}

const insertAudit = preparedOnce((db: MonthDb) =>
  db
    .insert(auditLog)
    .values({
      companyId: param("companyId"),
      actor: param("actor"),
      action: param("action"),
      code: param("code"),
      status: param("status"),
      detail: param("detail"),
      requestId: param("requestId"),
      createdAt: param("createdAt"),
    })
    .prepare(),
);

/** Writes an audit entry (its detail cut to 1,000 characters). */
export function insertAuditEntry(db: MonthDb, entry: AuditEntry): void {
  const { companyId = null, actor = null, action, code, status, requestId } = entry;
  insertAudit(db).run({
    companyId,
    actor,
    action,
    code,
    status,
    detail: entry.detail?.slice(0, 1000) ?? null,
    requestId,
    createdAt: entry.createdAt ?? new Date().toISOString(),
  });
}
