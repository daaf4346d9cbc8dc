import { sql } from "drizzle-orm";
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 strings in UTC, as in schema.ts.
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

/**
 * Where an integrator wants to hear about receipts (Standard Webhooks). Owned by a company, or by
 * a partner for all the issuers it serves. The signing secret is kept sealed under MASTER_KEY.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(), // "wh_…"
    ownerType: text("owner_type", { enum: ["company", "partner"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    url: text("url").notNull(),
    /** JSON array of event types. */
    events: text("events").notNull(),
    /** The `whsec_` secret's bytes, sealed (AES-GCM under MASTER_KEY, bound to the id). */
    secretSealed: text("secret_sealed").notNull(),
    /** Set when deliveries failed for 3 days: nothing more is sent until it is registered again. */
    disabledAt: text("disabled_at"),
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_endpoints_owner").on(t.ownerType, t.ownerId)],
);
