// The tables of an IssuerLedger object (one per issuer); row types in rows.ts.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, updatedAt } from "../columns.ts";

/** A DGII-authorised e-NCF range for one type. `next_number` is the first never handed out. */
export const sequences = sqliteTable("sequences", {
  tipoeCF: text("tipo_ecf").primaryKey(),
  rangeFrom: integer("range_from").notNull(),
  rangeTo: integer("range_to").notNull(),
  nextNumber: integer("next_number").notNull(),
  /** FechaVencimientoSecuencia as an ISO date (yyyy-MM-dd). */
  expiresOn: text("expires_on").notNull(),
  updatedAt: updatedAt(),
});

/** Receipts issued per calendar month (America/Santo_Domingo), for the quota. */
export const usageCounters = sqliteTable("usage_counters", {
  month: text("month").primaryKey(), // yyyy-MM
  invoices: integer("invoices").notNull().default(0),
});

/**
 * Each `Idempotency-Key` and the receipt its request numbered: a retry with the key gets that
 * receipt's answer as it stands. (`status` and `response`: an answer stored verbatim, for keys
 * moved from a 1.7 database by ledger:migrate.)
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    key: text("key").primaryKey(),
    requestHash: text("request_hash").notNull(),
    status: integer("status"),
    response: text("response"),
    /** The receipt the key's request numbered, and the month object it is recorded in. */
    encf: text("encf"),
    month: text("month"),
    /** The validation warnings of the key's request (JSON), part of its answer. */
    warnings: text("warnings"),
    createdAt: createdAt(),
  },
  (t) => [index("idempotency_keys_created").on(t.createdAt)],
);

/**
 * A block of e-NCF numbers taken from `sequences` for one point-of-sale device, so the device
 * numbers receipts offline without colliding with any other device or with the API.
 */
export const deviceLeases = sqliteTable(
  "device_leases",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deviceId: text("device_id").notNull(),
    tipoeCF: text("tipo_ecf").notNull(),
    rangeFrom: integer("range_from").notNull(),
    rangeTo: integer("range_to").notNull(),
    /** FechaVencimientoSecuencia of the range the block came from (yyyy-MM-dd). */
    expiresOn: text("expires_on").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("device_leases_device_tipo").on(t.deviceId, t.tipoeCF, t.rangeFrom),
    index("device_leases_tipo").on(t.tipoeCF, t.rangeFrom),
  ],
);

/**
 * Where each receipt lives: runs of consecutive numbers of one type recorded in the same month
 * object. Numbers are handed out in order, so a month of API receipts is one run per type and a
 * device's lease a few: the index stays small where a row per receipt would not (ARCHITECTURE.md).
 */
export const receiptIndex = sqliteTable(
  "receipt_index",
  {
    tipoeCF: text("tipo_ecf").notNull(),
    firstNumber: integer("first_number").notNull(),
    lastNumber: integer("last_number").notNull(),
    month: text("month").notNull(), // yyyy-MM of the ReceiptMonth object
  },
  (t) => [primaryKey({ columns: [t.tipoeCF, t.firstNumber] }), index("receipt_index_last").on(t.tipoeCF, t.lastNumber)],
);

/** Where each purchase (a supplier's e-CF we received) lives, by supplier and e-NCF. */
export const purchaseIndex = sqliteTable(
  "purchase_index",
  {
    rncEmisor: text("rnc_emisor").notNull(),
    encf: text("encf").notNull(),
    month: text("month").notNull(),
  },
  (t) => [primaryKey({ columns: [t.rncEmisor, t.encf] })],
);

/** Every month that has a ReceiptMonth object with something in it: what reports fan out to. */
export const ledgerMonths = sqliteTable("ledger_months", {
  month: text("month").primaryKey(),
});

/** Ranges DGII voided (ANECF): numbers that will never be a receipt and need no voiding again. */
export const voidedRanges = sqliteTable(
  "voided_ranges",
  {
    tipoeCF: text("tipo_ecf").notNull(),
    firstNumber: integer("first_number").notNull(),
    lastNumber: integer("last_number").notNull(),
    voidedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tipoeCF, t.firstNumber, t.lastNumber] })],
);

/** Notices given once (an event such as certificate.expiring for one certificate, quota.near_limit for one month). */
export const notices = sqliteTable("notices", {
  key: text("key").primaryKey(),
  givenAt: createdAt(),
});

/**
 * How the issuer classifies a supplier's purchases in the 606, by the supplier's RNC or cédula:
 * learned from the last classification of one of its purchases, or set by the issuer (which a
 * later classification does not overwrite). Rates are percentages (exact decimals as text) of the
 * purchase's ITBIS (itbisRetenido, itbisAlCosto) or of its amount without taxes (retención renta).
 */
export const supplierDefaults = sqliteTable("supplier_defaults", {
  rncEmisor: text("rnc_emisor").primaryKey(),
  tipoBienesServicios: text("tipo_bienes_servicios"),
  formaPago: text("forma_pago"),
  tipoRetencionIsr: text("tipo_retencion_isr"),
  itbisRetenidoPorcentaje: text("itbis_retenido_porcentaje"),
  retencionRentaPorcentaje: text("retencion_renta_porcentaje"),
  itbisAlCostoPorcentaje: text("itbis_al_costo_porcentaje"),
  origin: text("origin", { enum: ["learned", "set"] }).notNull(),
  updatedAt: updatedAt(),
});

/**
 * The issuer's catalogue version: one counter (a single row, id 1) shared by products and cashiers.
 * Every changed row takes the next number, so a till asks for "what changed after N" with one
 * integer and pages through the changes in order (catalog/catalog-sync.ts).
 */
export const catalogVersion = sqliteTable("catalog_version", {
  id: integer("id").primaryKey(),
  version: integer("version").notNull(),
});

/**
 * A product of the issuer's shared catalogue. Prices are integer cents (never a float);
 * barcodes a JSON array of strings. Deleting marks a product inactive so tills learn of it.
 */
export const products = sqliteTable(
  "products",
  {
    id: text("id").primaryKey(),
    code: text("code").notNull(),
    barcodes: text("barcodes", { mode: "json" }).$type<string[]>().notNull(),
    name: text("name").notNull(),
    priceCents: integer("price_cents").notNull(),
    priceIncludesItbis: integer("price_includes_itbis", { mode: "boolean" }).notNull(),
    /** "18", "16", "0" or "exempt". */
    itbisRate: text("itbis_rate").notNull(),
    /** DGII UnidadMedida code (Tabla IV). */
    unit: text("unit").notNull(),
    kind: text("kind", { enum: ["good", "service"] }).notNull(),
    active: integer("active", { mode: "boolean" }).notNull(),
    version: integer("version").notNull(),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("products_code").on(t.code),
    index("products_version").on(t.version),
    index("products_active_code").on(t.active, t.code),
  ],
);

/** A cashier of the issuer's tills: the PIN as a PBKDF2-SHA256 hash a till checks offline. */
export const cashiers = sqliteTable(
  "cashiers",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    pinIterations: integer("pin_iterations").notNull(),
    pinSalt: text("pin_salt").notNull(),
    pinHash: text("pin_hash").notNull(),
    active: integer("active", { mode: "boolean" }).notNull(),
    version: integer("version").notNull(),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("cashiers_version").on(t.version)],
);
