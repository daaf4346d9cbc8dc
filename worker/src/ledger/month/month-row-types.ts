// A month object's rows as the worker reads them (ledger/rows.ts hands them on to the rest).
import type { auditLog, purchases, receipts } from "./month-tables.ts";

export type Receipt = typeof receipts.$inferSelect;
export type NewReceipt = typeof receipts.$inferInsert;
export type ReceiptChanges = Partial<Omit<NewReceipt, "id" | "companyId" | "encf">>;
export type Purchase = typeof purchases.$inferSelect;
export type NewPurchase = typeof purchases.$inferInsert;
export type AuditEntry = typeof auditLog.$inferInsert;

/** One sending of a receipt's printed copy by e-mail, as `receipts.emails` keeps them (a JSON list). */
export interface EmailRecord {
  to: string;
  at: string;
  outcome: "sent" | "failed" | "retrying";
  detail: string | null;
}
