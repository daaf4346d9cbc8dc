// The issuer ledger's tables, in the SQLite of its Durable Objects (drizzle over durable-sqlite).
// Two kinds of object, so that none grows without bound (docs/ARCHITECTURE.md):
// - IssuerLedger, one per issuer: what is allocated or counted per issuer (e-NCF ranges, quota,
//   device leases, idempotency keys) and the index that says in which month object a receipt or
//   a purchase lives.
// - ReceiptMonth, one per issuer and month: the receipts, purchases and audit entries of that
//   month, and the retry schedule of its receipts (the object's alarm).
import * as issuer from "./issuer-tables.ts";
import * as month from "./month-tables.ts";
import type { deviceLeases, sequences } from "./issuer-tables.ts";
import type { auditLog, purchases, receipts } from "./month-tables.ts";

export * from "./issuer-tables.ts";
export * from "./month-tables.ts";
export const issuerTables = issuer;
export const monthTables = month;

export type Receipt = typeof receipts.$inferSelect;
export type NewReceipt = typeof receipts.$inferInsert;
export type ReceiptChanges = Partial<Omit<NewReceipt, "id" | "companyId" | "encf">>;
export type Purchase = typeof purchases.$inferSelect;
export type NewPurchase = typeof purchases.$inferInsert;
export type AuditEntry = typeof auditLog.$inferInsert;
export type Sequence = typeof sequences.$inferSelect;
export type Lease = Pick<typeof deviceLeases.$inferSelect, "tipoeCF" | "rangeFrom" | "rangeTo" | "expiresOn">;

/** One sending of a receipt's printed copy by e-mail, as `receipts.emails` keeps them (a JSON list). */
export interface EmailRecord {
  to: string;
  at: string;
  outcome: "sent" | "failed" | "retrying";
  detail: string | null;
}

/** A validation warning kept with an idempotency key (the answer to a retry repeats it). */
export interface StoredWarning {
  path: string;
  code: string;
  message: string;
  messageEs?: string;
}
