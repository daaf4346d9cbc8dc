import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./schema.ts";

const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

/**
 * An e-CF a supplier sent us (a purchase) that we acknowledged as received (ARECF Estado 0).
 * One row per receiving company, supplier and e-NCF: a second copy is a duplicate (code 3).
 */
export const purchases = sqliteTable(
  "purchases",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull().references(() => companies.id),
    rncEmisor: text("rnc_emisor").notNull(),
    razonSocialEmisor: text("razon_social_emisor"),
    encf: text("encf").notNull(),
    tipoeCF: text("tipo_ecf").notNull(),
    /** FechaEmision as ISO yyyy-MM-dd (for range filters). */
    issueDate: text("issue_date").notNull(),
    /** Exact decimals as written in the XML. */
    montoTotal: text("monto_total").notNull(),
    totalItbis: text("total_itbis"),
    /** R2 keys of the supplier's signed XML and of the ARECF we answered with. */
    xmlKey: text("xml_key").notNull(),
    xmlSha256: text("xml_sha256").notNull(),
    arecfKey: text("arecf_key").notNull(),
    /** ARECF Estado we answered ("0": recibido); refusals are not purchases, they go to the audit log. */
    arecfEstado: text("arecf_estado").notNull(),
    fechaHoraAcuseRecibo: text("fecha_hora_acuse_recibo").notNull(),
    /** Our commercial approval (ACECF): null until decided, then "accepted" or "rejected". */
    approvalStatus: text("approval_status", { enum: ["accepted", "rejected"] }),
    approvalReason: text("approval_reason"),
    approvalKey: text("approval_key"),
    approvedAt: text("approved_at"),
    /** Where the ACECF went: "sent", "failed" or "skipped", with the other side's answer. */
    approvalSupplierOutcome: text("approval_supplier_outcome"),
    approvalSupplierDetail: text("approval_supplier_detail"),
    approvalDgiiOutcome: text("approval_dgii_outcome"),
    approvalDgiiDetail: text("approval_dgii_detail"),
    receivedAt: createdAt(),
  },
  (t) => [
    uniqueIndex("purchases_company_emisor_encf").on(t.companyId, t.rncEmisor, t.encf),
    index("purchases_company_date").on(t.companyId, t.issueDate, t.id),
  ],
);

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
