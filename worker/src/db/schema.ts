import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 strings in UTC; dates DGII prints (sequence expiry) are ISO dates.
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);
/** Set by the code on every change (SQLite cannot add a column with a computed default). */
const updatedAt = () => text("updated_at");

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

/**
 * Certificates an issuer had before its current one, kept when a new one is uploaded: a receipt a
 * till signed offline with the previous certificate (and printed) is still the issuer's when its
 * FechaHoraFirma precedes `replacedAt`. Only the public part is kept; the old key is dropped.
 */
export const companyCertificates = sqliteTable(
  "company_certificates",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: text("company_id").notNull().references(() => companies.id),
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
    updatedAt: updatedAt(),
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

/**
 * An issued e-CF. The row and the signed XML in R2 are written before anything is sent to DGII,
 * so nothing DGII may have seen is ever lost. One row per issuer and e-NCF, forever.
 */
export const receipts = sqliteTable(
  "receipts",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull().references(() => companies.id),
    encf: text("encf").notNull(),
    tipoeCF: text("tipo_ecf").notNull(),
    /** FechaEmision as ISO yyyy-MM-dd (for range filters). */
    issueDate: text("issue_date").notNull(),
    rncComprador: text("rnc_comprador"),
    razonSocialComprador: text("razon_social_comprador"),
    /** Exact decimals as text, as written in the XML. */
    montoTotal: text("monto_total").notNull(),
    totalItbis: text("total_itbis"),
    securityCode: text("security_code").notNull(),
    fechaHoraFirma: text("fecha_hora_firma").notNull(),
    timbreUrl: text("timbre_url").notNull(),
    /** R2 key of the signed XML, and its SHA-256 (hex). */
    xmlKey: text("xml_key").notNull(),
    xmlSha256: text("xml_sha256").notNull(),
    /** SHA-256 of the canonical request document: tells a retry from a different document. */
    documentHash: text("document_hash").notNull(),
    /** "ecf" (full document to DGII) or "rfce" (E32 under 250,000: the summary). */
    dgiiPath: text("dgii_path", { enum: ["ecf", "rfce"] }).notNull(),
    /** Our life-cycle state; `estado` is DGII's word for it. */
    status: text("status", { enum: ["signed", "in_process", "accepted", "conditional", "rejected", "contingency", "voided"] }).notNull(),
    trackId: text("track_id"),
    dgiiCodigo: text("dgii_codigo"),
    /** DGII's messages (JSON array of { codigo, valor }). */
    dgiiMensajes: text("dgii_mensajes"),
    /** How many times it was handed to DGII (0 until the first send). */
    sendAttempts: integer("send_attempts").notNull().default(0),
    /** A worker holding this receipt (sending or polling) until then; others leave it alone. */
    claimedUntil: text("claimed_until"),
    /** When DGII was last asked about it, and when to ask next (contingency and polling). */
    nextAttemptAt: text("next_attempt_at"),
    source: text("source", { enum: ["api", "device"] }).notNull().default("api"),
    /** Credit and debit notes: the modified receipt and the modification code. */
    ncfModificado: text("ncf_modificado"),
    codigoModificacion: text("codigo_modificacion"),
    /** The buyer's commercial approval (ACECF): null, "accepted" or "rejected". */
    approvalStatus: text("approval_status"),
    approvalReason: text("approval_reason"),
    /** The ACECF's FechaHoraAprobacionComercial (dd-MM-yyyy HH:mm:ss). */
    approvalAt: text("approval_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("receipts_company_encf").on(t.companyId, t.encf),
    index("receipts_company_date").on(t.companyId, t.issueDate, t.encf),
    index("receipts_status").on(t.status, t.updatedAt),
    index("receipts_modified").on(t.companyId, t.ncfModificado),
  ],
);

/** The first answer to each `Idempotency-Key`, replayed for the same key. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    companyId: text("company_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status"),
    response: text("response"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.key] })],
);
