import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// DGII's taxpayer registry (the RNC file), imported whole by the administrator
// (migrations/0011_taxpayers.sql; worker/src/taxpayers/registry.ts). Timestamps are ISO 8601 in UTC.

/**
 * One import of the registry, a generation: `loading` while its rows arrive, `current` once
 * committed, `replaced` when a later one is committed, `abandoned` when given up. Rows of a
 * replaced or abandoned generation are deleted in chunks afterwards.
 */
export const taxpayerImports = sqliteTable(
  "taxpayer_imports",
  {
    generation: integer("generation").primaryKey({ autoIncrement: true }),
    state: text("state", { enum: ["loading", "current", "replaced", "abandoned"] }).notNull(),
    /** The file's name as the CLI read it, for the status report. */
    source: text("source"),
    startedAt: text("started_at").notNull(),
    /** The last chunk received: an import silent for a day is abandoned by the next purge. */
    lastActivityAt: text("last_activity_at").notNull(),
    committedAt: text("committed_at"),
    rowCount: integer("row_count"),
  },
  (t) => [index("taxpayer_imports_state").on(t.state)],
);

/**
 * The single row (id 1) naming the generation readers see. Committing rewrites it in one
 * statement: that is what makes replacing the registry atomic.
 */
export const taxpayerRegistry = sqliteTable(
  "taxpayer_registry",
  {
    id: integer("id").primaryKey(),
    generation: integer("generation").notNull(),
    rowCount: integer("row_count").notNull(),
    importedAt: text("imported_at").notNull(),
  },
  (t) => [check("taxpayer_registry_single_row", sql`${t.id} = 1`)],
);

/** A taxpayer as DGII's file lists it, in one generation. The table is WITHOUT ROWID (see the migration). */
export const taxpayers = sqliteTable(
  "taxpayers",
  {
    generation: integer("generation").notNull(),
    /** RNC (9 digits) or cédula (11 digits). */
    rnc: text("rnc").notNull(),
    legalName: text("legal_name").notNull(),
    tradeName: text("trade_name"),
    activity: text("activity"),
    /** As DGII's file spells it: ACTIVO, SUSPENDIDO, DADO DE BAJA, … */
    status: text("status").notNull(),
    paymentRegime: text("payment_regime"),
    /** yyyy-MM-dd */
    registeredOn: text("registered_on"),
  },
  (t) => [primaryKey({ columns: [t.generation, t.rnc] })],
);
