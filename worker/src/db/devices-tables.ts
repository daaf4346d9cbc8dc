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
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("devices_pairing_code_hash").on(t.pairingCodeHash),
    uniqueIndex("devices_token_hash").on(t.tokenHash),
    index("devices_company").on(t.companyId),
  ],
);
