import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./schema.ts";

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
    companyId: text("company_id").notNull().references(() => companies.id),
    name: text("name").notNull(),
    /** SHA-256 of the pairing code; cleared when the code is used, so it works once. */
    pairingCodeHash: text("pairing_code_hash"),
    pairingExpiresAt: text("pairing_expires_at"),
    /** SHA-256 of the device token; set at pairing. */
    tokenHash: text("token_hash"),
    pairedAt: text("paired_at"),
    revokedAt: text("revoked_at"),
    lastSeenAt: text("last_seen_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("devices_pairing_code_hash").on(t.pairingCodeHash),
    uniqueIndex("devices_token_hash").on(t.tokenHash),
    index("devices_company").on(t.companyId),
  ],
);

/**
 * A block of e-NCF numbers taken from the issuer's `sequences` for one device, so the device can
 * number receipts offline without colliding with any other device or with the API.
 */
export const deviceLeases = sqliteTable(
  "device_leases",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deviceId: text("device_id").notNull().references(() => devices.id),
    companyId: text("company_id").notNull().references(() => companies.id),
    tipoeCF: text("tipo_ecf").notNull(),
    rangeFrom: integer("range_from").notNull(),
    rangeTo: integer("range_to").notNull(),
    /** FechaVencimientoSecuencia of the range the block came from (yyyy-MM-dd). */
    expiresOn: text("expires_on").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("device_leases_device_tipo").on(t.deviceId, t.tipoeCF, t.rangeFrom)],
);

/**
 * The first answer to each receipt a device uploaded, one row per issuer and e-NCF: a retry
 * after a lost response replays it instead of producing a second receipt.
 */
export const deviceUploads = sqliteTable(
  "device_uploads",
  {
    companyId: text("company_id").notNull().references(() => companies.id),
    encf: text("encf").notNull(),
    deviceId: text("device_id").notNull().references(() => devices.id),
    /** SHA-256 (hex) of the uploaded signed XML: tells a retry from a different document. */
    xmlSha256: text("xml_sha256").notNull(),
    /** The JSON answer given the first time; null while the first upload is still being processed. */
    answer: text("answer"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.encf] })],
);
