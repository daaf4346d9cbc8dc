import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./tables.ts";

export const CREDITO_FISCAL_REQUEST_STATES = ["pending", "issuing", "issued", "declined"] as const;
/** The E34 voiding the E32 (`creditoFiscalE32` "credit_note"): owed while its task retries it. */
export const CREDIT_NOTE_STATES = ["owed", "issued", "failed"] as const;

/**
 * A buyer's request for a crédito fiscal invoice (E31) for one of the issuer's consumer receipts
 * (E32), kept while it waits for an owner's or accountant's decision (the issuer's
 * `creditoFiscalApproval` setting "approval"). At most one open or issued request per E32: a
 * declined one leaves room for the buyer to ask again. `issuing` is the claim an approval takes
 * before it issues, so two approvals at once issue once. (Not "approved"/"rejected": those words
 * are DGII's receipt and commercial-approval states, and the API spells each state one way.)
 */
export const creditoFiscalRequests = sqliteTable(
  "credito_fiscal_requests",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    e32: text("e32").notNull(),
    rncComprador: text("rnc_comprador").notNull(),
    /** Where the E31's printed copy goes when the buyer is not an electronic receiver. */
    email: text("email"),
    status: text("status", { enum: CREDITO_FISCAL_REQUEST_STATES }).notNull().default("pending"),
    /** Why it was rejected (the owner's or accountant's words). */
    reason: text("reason"),
    e31: text("e31"),
    /** The E34 voiding the E32, when the issuer chose one; null when it chose none. */
    creditNote: text("credit_note", { enum: CREDIT_NOTE_STATES }),
    e34: text("e34"),
    decidedBy: text("decided_by"),
    decidedAt: text("decided_at"),
    createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [
    uniqueIndex("credito_fiscal_requests_open").on(t.companyId, t.e32).where(sql`status <> 'declined'`),
    index("credito_fiscal_requests_status").on(t.companyId, t.status, t.createdAt),
  ],
);

export type CreditoFiscalRequestRow = typeof creditoFiscalRequests.$inferSelect;
