import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 strings in UTC; dates DGII prints (sequence expiry) are ISO dates.
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

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
    dgiiEnvironment: text("dgii_environment", { enum: ["testecf", "certecf", "ecf"] }).notNull().default("testecf"),
    invoiceLimitPerMonth: integer("invoice_limit_per_month").notNull().default(1000),
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
    partnerId: text("partner_id").notNull().references(() => partners.id),
    companyId: text("company_id").notNull().references(() => companies.id),
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

/** A DGII-authorised e-NCF range for one issuer and type. */
export const sequences = sqliteTable(
  "sequences",
  {
    companyId: text("company_id").notNull().references(() => companies.id),
    tipoeCF: text("tipo_ecf").notNull(),
    rangeFrom: integer("range_from").notNull(),
    rangeTo: integer("range_to").notNull(),
    nextNumber: integer("next_number").notNull(),
    /** FechaVencimientoSecuencia as an ISO date (yyyy-MM-dd). */
    expiresOn: text("expires_on").notNull(),
    updatedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.tipoeCF] })],
);

/** Receipts issued per issuer and calendar month (America/Santo_Domingo), for the quota. */
export const usageCounters = sqliteTable(
  "usage_counters",
  {
    companyId: text("company_id").notNull().references(() => companies.id),
    month: text("month").notNull(), // yyyy-MM
    invoices: integer("invoices").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.month] })],
);

/** Every refused or failed request, per issuer when one was resolved. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: text("company_id"),
    actor: text("actor"), // api key id, device id or "admin"
    action: text("action").notNull(), // "METHOD /path"
    code: text("code").notNull(),
    status: integer("status").notNull(),
    detail: text("detail"),
    requestId: text("request_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_company_created").on(t.companyId, t.createdAt)],
);

/** Failed logins per scope (`key:<hash>` or `ip:<address>`) in a sliding window, for throttling. */
export const loginThrottle = sqliteTable("login_throttle", {
  scope: text("scope").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStart: text("window_start").notNull(),
});
