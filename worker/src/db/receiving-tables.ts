import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./tables.ts";

const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

/** Per company receiver settings (DGII's emisor-receptor services). */
export const receiverSettings = sqliteTable("receiver_settings", {
  companyId: text("company_id")
    .primaryKey()
    .references(() => companies.id),
  /** When true, recepción and aprobación comercial demand a token from validacioncertificado. */
  requireAuthentication: integer("require_authentication", { mode: "boolean" }).notNull().default(false),
  updatedAt: createdAt(),
});

/** Seeds handed out by GET /fe/autenticacion/api/semilla: single use, short-lived. */
export const receiverSeeds = sqliteTable(
  "receiver_seeds",
  {
    valor: text("valor").primaryKey(),
    /** The receiving company named in the URL, when there was one. */
    companyId: text("company_id"),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("receiver_seeds_expires").on(t.expiresAt)],
);

/** Bearer tokens issued for a signed seed; only the SHA-256 of the token is kept. */
export const receiverTokens = sqliteTable(
  "receiver_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    companyId: text("company_id"),
    /** Who signed the seed: the RNC/cédula in the certificate, or its subject. */
    holder: text("holder").notNull(),
    expiresAt: text("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("receiver_tokens_expires").on(t.expiresAt)],
);
