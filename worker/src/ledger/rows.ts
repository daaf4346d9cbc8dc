// The issuer ledger's tables, in the SQLite of its Durable Objects (drizzle over durable-sqlite).
// Two kinds of object, so that none grows without bound (docs/ARCHITECTURE.md):
// - IssuerLedger, one per issuer: what is allocated or counted per issuer (e-NCF ranges, quota,
//   device leases, idempotency keys) and the index that says in which month object a receipt or
//   a purchase lives.
// - ReceiptMonth, one per issuer and month: the receipts, purchases and audit entries of that
//   month, and the retry schedule of its receipts (the object's alarm).
import * as issuer from "./issuer/issuer-tables.ts";
import * as month from "./month/month-tables.ts";

export * from "./issuer/issuer-tables.ts";
export * from "./month/month-tables.ts";
export type * from "./issuer/issuer-row-types.ts";
export type * from "./month/month-row-types.ts";
export const issuerTables = issuer;
export const monthTables = month;
