import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 strings in UTC; dates DGII prints (sequence expiry) are ISO dates.
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

// D1 holds the directory only. The ledger (ranges, quota, idempotency keys, receipts, purchases,
// audit, device leases) lives in the issuer's Durable Objects: worker/src/ledger/. Its D1 tables
// of API 1.7 stay in the database, described only by migrations/ (read by `ledger:migrate`),
// until a later release drops them: a drizzle-kit generate before then proposes dropping them,
// and that must not be applied yet.

/** An issuer: a company that emits e-CF under its RNC (or cédula). */
export const companies = sqliteTable(
  "companies",
  {
    id: text("id").primaryKey(), // GUID
    legalName: text("legal_name").notNull(),
    rnc: text("rnc").notNull(),
    tradeName: text("trade_name"),
    address: text("address"),
    province: text("province"),
    municipality: text("municipality"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    dgiiEnvironment: text("dgii_environment", { enum: ["testecf", "certecf", "ecf"] })
      .notNull()
      .default("testecf"),
    invoiceLimitPerMonth: integer("invoice_limit_per_month").notNull().default(1000),
    /** Totals beyond DGII's tolerance: refused ("strict") or issued with a warning ("dgii"); shared's TotalsPolicy. */
    totalsPolicy: text("totals_policy", { enum: ["strict", "dgii"] })
      .notNull()
      .default("strict"),
    /** A till's lease takes at most this share (%) of the numbers left in a range (migration 0015). */
    deviceLeaseSharePercent: integer("device_lease_share_percent").notNull().default(25),
    /** A till takes at most this many leases of one type a day (migration 0015). */
    deviceLeasesPerDay: integer("device_leases_per_day").notNull().default(20),
    /** A buyer's crédito fiscal request (public-receipt/): issued at once, or waiting for an owner's or accountant's approval. */
    creditoFiscalApproval: text("credito_fiscal_approval", { enum: ["at_once", "approval"] })
      .notNull()
      .default("at_once"),
    /** What the E31 does with the E32 it replaces: nothing, or a credit note (E34) voiding it. */
    creditoFiscalE32: text("credito_fiscal_e32", { enum: ["none", "credit_note"] })
      .notNull()
      .default("none"),
    certificateFileName: text("certificate_file_name"),
    /** PKCS#8 private key, AES-GCM encrypted under MASTER_KEY (base64). */
    certificateKeyEncrypted: text("certificate_key_encrypted"),
    /** Certificate DER (base64). */
    certificateDer: text("certificate_der"),
    certificateSubject: text("certificate_subject"),
    certificateSerial: text("certificate_serial"),
    certificateNotAfter: text("certificate_not_after"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("companies_rnc_unique").on(t.rnc)],
);

export type Company = typeof companies.$inferSelect;

/**
 * Certificates an issuer had before its current one, kept when a new one is uploaded: a receipt a
 * till signed offline with the previous certificate (and printed) is still the issuer's when its
 * FechaHoraFirma precedes `replacedAt`. Only the public part is kept; the old key is dropped.
 */
export const companyCertificates = sqliteTable(
  "company_certificates",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    /** Certificate DER (base64). */
    certificateDer: text("certificate_der").notNull(),
    certificateSerial: text("certificate_serial"),
    certificateNotAfter: text("certificate_not_after"),
    /** When it stopped being the issuer's certificate (ISO 8601, UTC). */
    replacedAt: text("replaced_at").notNull(),
  },
  (t) => [index("company_certificates_company").on(t.companyId, t.replacedAt)],
);

/** A software house that integrates on behalf of several issuers. */
export const partners = sqliteTable("partners", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

/** Which issuers a partner may act for. */
export const partnerCompanies = sqliteTable(
  "partner_companies",
  {
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.companyId] })],
);

/** API credentials. Only SHA-256 hashes are stored; the clear key and secret are shown once. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(), // public id, e.g. "key_test_…"
    kind: text("kind", { enum: ["test", "live"] }).notNull(),
    keyHash: text("key_hash").notNull(),
    secretHash: text("secret_hash").notNull(),
    ownerType: text("owner_type", { enum: ["company", "partner"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    createdAt: createdAt(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_unique").on(t.keyHash)],
);

/** Failed logins per scope (`key:<hash>` or `ip:<address>`) in a sliding window, for throttling. */
export const loginThrottle = sqliteTable("login_throttle", {
  scope: text("scope").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStart: text("window_start").notNull(),
});
