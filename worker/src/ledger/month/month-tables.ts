// The tables of a ReceiptMonth object (one per issuer and month); row types in rows.ts.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "../columns.ts";

/**
 * An issued e-CF. The row and the signed XML in R2 are written before anything is sent to DGII,
 * so nothing DGII may have seen is ever lost. One row per e-NCF, forever.
 */
export const receipts = sqliteTable(
  "receipts",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
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
    /** Tells a retry from a different document: SHA-256 of the canonical request, or of a device's signed XML. */
    documentHash: text("document_hash").notNull(),
    /** "ecf" (full document to DGII) or "rfce" (E32 under 250,000: the summary). */
    dgiiPath: text("dgii_path", { enum: ["ecf", "rfce"] }).notNull(),
    /** Our life-cycle state; `estado` is DGII's word for it. */
    status: text("status", {
      enum: ["signed", "in_process", "accepted", "conditional", "rejected", "contingency", "voided"],
    }).notNull(),
    trackId: text("track_id"),
    dgiiCodigo: text("dgii_codigo"),
    /** DGII's messages (JSON array of { codigo, valor }). */
    dgiiMensajes: text("dgii_mensajes"),
    /** How many times it was handed to DGII (0 until the first send). */
    sendAttempts: integer("send_attempts").notNull().default(0),
    /** How many times the alarm has moved it forward: its back-off (1, 2, 4, 8 s … 10 min). */
    retries: integer("retries").notNull().default(0),
    /** Someone holding this receipt (a request sending or polling) until then; the alarm leaves it alone. */
    claimedUntil: text("claimed_until"),
    /** When the alarm should look at it next; null once final. */
    nextAttemptAt: text("next_attempt_at"),
    source: text("source", { enum: ["api", "device"] })
      .notNull()
      .default("api"),
    /** Credit and debit notes: the modified receipt and the modification code. */
    ncfModificado: text("ncf_modificado"),
    codigoModificacion: text("codigo_modificacion"),
    /** The buyer's commercial approval (ACECF): null, "accepted" or "rejected". */
    approvalStatus: text("approval_status"),
    approvalReason: text("approval_reason"),
    /** The ACECF's FechaHoraAprobacionComercial (dd-MM-yyyy HH:mm:ss). */
    approvalAt: text("approval_at"),
    /**
     * Delivery to the buyer (emisor-receptor), once DGII accepted it: null when there is nothing to
     * deliver (no buyer RNC, a type not exchanged), else "pendiente", "entregado" (ARECF Estado 0),
     * "no_recibido" (ARECF Estado 1), "no_receptor" (not in DGII's directory) or "fallido".
     */
    deliveryStatus: text("delivery_status", {
      enum: ["pendiente", "entregado", "no_recibido", "no_receptor", "fallido"],
    }),
    deliveryAt: text("delivery_at"),
    deliveryAttempts: integer("delivery_attempts").notNull().default(0),
    /** The ARECF's Estado ("0" or "1") and CodigoMotivoNoRecibido, and what went wrong last. */
    deliveryArecfEstado: text("delivery_arecf_estado"),
    deliveryMotivo: text("delivery_motivo"),
    deliveryDetail: text("delivery_detail"),
    /** Each sending of the printed copy by e-mail: JSON array of { to, at, outcome, detail }. */
    emails: text("emails"),
    /**
     * What DGII's monthly formats (606, 607) take from the signed document, read once when it is
     * recorded: JSON `DocumentFigures` (document-figures.ts). Null on rows recorded before
     * 1.8.0: the first report that needs them reads the archived XML and fills them in.
     */
    figures: text("figures"),
    /**
     * Withholding by the buyer (607 columns 7, 10 and 12), set by the issuer (PATCH /ventas/{encf})
     * when the buyer withheld: the date (yyyy-MM-dd) and the amounts, exact decimals; a null amount
     * means "as the e-CF declares it" (TotalITBISRetenido, TotalISRRetencion).
     */
    fechaRetencion: text("fecha_retencion"),
    itbisRetenidoTerceros: text("itbis_retenido_terceros"),
    retencionRentaTerceros: text("retencion_renta_terceros"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("receipts_encf").on(t.encf),
    index("receipts_date").on(t.issueDate, t.encf),
    // The report's buyer and type filters, in report order: a page is a range of one index, never a
    // scan of the month (3,000,000 receipts at a supermarket chain; worker/test/month-report-plans).
    index("receipts_buyer_date").on(t.rncComprador, t.issueDate, t.encf),
    index("receipts_type_date").on(t.tipoeCF, t.issueDate, t.encf),
    index("receipts_due").on(t.nextAttemptAt),
    index("receipts_modified").on(t.ncfModificado),
    // Only the rows whose figures are still to be read (recorded before 1.8.0): finding them is
    // not a scan of the month.
    index("receipts_without_figures").on(t.id).where(sql`${t.figures} IS NULL`),
  ],
);

/**
 * How many receipts each day and type holds, kept by triggers on receipts (migration 0007): the
 * report's total without a filter, or by type, is a sum of at most 31 × 10 rows instead of a
 * count over millions.
 */
export const receiptDayCounts = sqliteTable(
  "receipt_day_counts",
  {
    issueDate: text("issue_date").notNull(),
    tipoeCF: text("tipo_ecf").notNull(),
    receipts: integer("receipts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.issueDate, t.tipoeCF] })],
);

/**
 * An e-CF a supplier sent us (a purchase) that we acknowledged as received (ARECF Estado 0).
 * One per supplier and e-NCF (purchase_index in the issuer object says which month holds it).
 */
export const purchases = sqliteTable(
  "purchases",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
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
    /** DocumentFigures of the supplier's e-CF (as on receipts). */
    figures: text("figures"),
    /**
     * The 606 classification the buyer gives a purchase (PATCH /compras/{id}), DGII's names; null
     * until given, then the supplier's defaults and the document fill what is still null when the
     * 606 is built (receiving/purchase-classification.ts). Codes are DGII's two-digit codes, dates
     * yyyy-MM-dd, amounts exact decimals as text.
     */
    tipoBienesServicios: text("tipo_bienes_servicios"),
    fechaPago: text("fecha_pago"),
    formaPago: text("forma_pago"),
    tipoRetencionIsr: text("tipo_retencion_isr"),
    itbisRetenido: text("itbis_retenido"),
    montoRetencionRenta: text("monto_retencion_renta"),
    itbisAlCosto: text("itbis_al_costo"),
    itbisProporcionalidad: text("itbis_proporcionalidad"),
    classifiedAt: text("classified_at"),
    receivedAt: createdAt(),
    /**
     * Whether DGII knows the supplier's e-CF (consultaestado, receiving/purchase-confirmation.ts):
     * "pending" until it answers Aceptado ("confirmed"), Aceptado Condicional ("conditional") or
     * Rechazado ("rejected"); "not_found_at_dgii" once it still does not know it after the window.
     * Only a confirmed or conditional purchase (or one overridden) counts.
     */
    dgiiStatus: text("dgii_status", { enum: ["pending", "confirmed", "conditional", "rejected", "not_found_at_dgii"] })
      .notNull()
      .default("pending"),
    /** CodigoSeguridad of the supplier's e-CF (first six characters of its SignatureValue). */
    securityCode: text("security_code"),
    dgiiChecks: integer("dgii_checks").notNull().default(0),
    /** When the alarm asks DGII next (null: no more); rows from before this column are due at once. */
    dgiiNextCheckAt: text("dgii_next_check_at").default("1970-01-01T00:00:00.000Z"),
    dgiiCheckedAt: text("dgii_checked_at"),
    /** The accountant's override of a purchase DGII does not confirm: why, who, when (audited too). */
    dgiiOverrideReason: text("dgii_override_reason"),
    dgiiOverrideBy: text("dgii_override_by"),
    dgiiOverrideAt: text("dgii_override_at"),
  },
  (t) => [
    uniqueIndex("purchases_emisor_encf").on(t.rncEmisor, t.encf),
    index("purchases_dgii_check").on(t.dgiiNextCheckAt).where(sql`${t.dgiiNextCheckAt} IS NOT NULL`),
    index("purchases_date").on(t.issueDate, t.id),
    index("purchases_without_figures").on(t.id).where(sql`${t.figures} IS NULL`),
  ],
);

/** Every refused or failed request of the issuer (and what DGII refused in the background). */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: text("company_id"),
    actor: text("actor"), // api key id, device id, "admin" or "alarm"
    action: text("action").notNull(), // "METHOD /path"
    code: text("code").notNull(),
    status: integer("status").notNull(),
    detail: text("detail"),
    requestId: text("request_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_created").on(t.createdAt)],
);

/**
 * What happens to a receipt after DGII, done by the month object's alarm and durable like the
 * receipt: delivery to the buyer, webhook events and deliveries, e-mails. Written in the same
 * object (and the same synchronous step) as the change that causes it, so none is lost; tasks
 * with the same `orderingKey` run strictly in order.
 */
export const tasks = sqliteTable(
  "tasks",
  {
    position: integer("position").primaryKey({ autoIncrement: true }),
    /** Stable id: a webhook delivery's `webhook-id`. */
    id: text("id").notNull(),
    kind: text("kind", { enum: ["buyer_delivery", "event", "webhook", "email", "credit_note"] }).notNull(),
    orderingKey: text("ordering_key").notNull(),
    /** JSON; for an event `{ type, timestamp, data }`. */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "done", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at").notNull(),
    /** Given up after this (failed). */
    deadline: text("deadline").notNull(),
    claimedUntil: text("claimed_until"),
    /** The last attempt's outcome (HTTP status, error), JSON. */
    lastResult: text("last_result"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("tasks_id").on(t.id),
    index("tasks_due").on(t.status, t.nextAttemptAt),
    index("tasks_order").on(t.orderingKey, t.position),
  ],
);

/**
 * A till's shift (cuadre de caja), kept in the month of the Santo Domingo day it was opened, keyed
 * by the id the till made. Open until the till sends its close (counted cash and Z report); a
 * closed shift is final. Amounts are exact decimals as text, as the till computed them.
 */
export const shifts = sqliteTable(
  "shifts",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id").notNull(),
    deviceId: text("device_id").notNull(),
    cashierId: text("cashier_id").notNull(),
    cashierName: text("cashier_name").notNull(),
    /** The Santo Domingo day it was opened (yyyy-MM-dd): the report's day. */
    businessDay: text("business_day").notNull(),
    openedAt: text("opened_at").notNull(),
    closedAt: text("closed_at"),
    openingFloat: text("opening_float").notNull(),
    countedCash: text("counted_cash"),
    /** The Z report's figures the report lists (null while open). */
    expectedCash: text("expected_cash"),
    cashDifference: text("cash_difference"),
    salesTotal: text("sales_total"),
    itbisTotal: text("itbis_total"),
    refundsTotal: text("refunds_total"),
    receiptCount: integer("receipt_count"),
    /** The whole Z report as the till sent it (JSON): receipts by type, payments by method. */
    report: text("report"),
    /** The request as last stored (canonical JSON): a repeat of it is recognised, a change after closing refused. */
    payload: text("payload").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("shifts_day").on(t.businessDay, t.deviceId, t.openedAt, t.id)],
);
