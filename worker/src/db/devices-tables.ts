import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./tables.ts";

// Timestamps are ISO 8601 strings in UTC, as in schema.ts.
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

/**
 * A point-of-sale terminal of one issuer. It is created with a one-time pairing code (only its
 * hash is kept) and, once paired, authenticates with its own token (only its hash is kept).
 */
export const devices = sqliteTable(
  "devices",
  {
    id: text("id").primaryKey(), // "dev_…"
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    /** SHA-256 of the pairing code; cleared when the code is used, so it works once. */
    pairingCodeHash: text("pairing_code_hash"),
    pairingExpiresAt: text("pairing_expires_at"),
    /** SHA-256 of the device token; set at pairing. */
    tokenHash: text("token_hash"),
    pairedAt: text("paired_at"),
    revokedAt: text("revoked_at"),
    lastSeenAt: text("last_seen_at"),
    /** The till may change a product's price at the counter (migration 0012). */
    canEditPrices: integer("can_edit_prices", { mode: "boolean" }).notNull().default(false),
    /** Who registered the till (`user:…`, `key:…`, `admin`), migration 0015. */
    createdBy: text("created_by"),
    /**
     * Whether the issuer's key may reach the till: `pending` for a till a manager registered, until
     * an owner approves it (`granted`); `not_needed` when the holder's side (an owner, the
     * company's key, the operator) registered it.
     */
    keyApproval: text("key_approval", { enum: ["not_needed", "pending", "granted"] })
      .notNull()
      .default("not_needed"),
    approvedBy: text("approved_by"),
    approvedAt: text("approved_at"),
    /** The till's own RSA-OAEP public key (SPKI, base64): the signing key travels wrapped to it. */
    tillPublicKey: text("till_public_key"),
    /** When the till last received the signing key. */
    keyHandedOverAt: text("key_handed_over_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("devices_pairing_code_hash").on(t.pairingCodeHash),
    uniqueIndex("devices_token_hash").on(t.tokenHash),
    index("devices_company").on(t.companyId),
  ],
);

/**
 * A number a till gave up (it took it and will never sign it), proposed for voiding: no ANECF
 * leaves until an owner or accountant confirms it (migration 0015). `outcome` is the voiding's
 * result as JSON once decided.
 */
export const givenUpProposals = sqliteTable(
  "given_up_proposals",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    deviceId: text("device_id").notNull(),
    tipoeCF: text("tipo_ecf").notNull(),
    encf: text("encf").notNull(),
    status: text("status", { enum: ["proposed", "voided", "refused"] })
      .notNull()
      .default("proposed"),
    proposedAt: text("proposed_at").notNull(),
    decidedBy: text("decided_by"),
    decidedAt: text("decided_at"),
    outcome: text("outcome"),
  },
  (t) => [uniqueIndex("given_up_proposals_encf").on(t.companyId, t.encf)],
);
