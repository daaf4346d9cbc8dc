import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "../db/tables.ts";

// A company's buyers (RNC or cédula), filled from its receipts and edited by its owner; whether
// DGII's directory lists each as an electronic receiver, as last asked (null: not asked yet).
export const customers = sqliteTable(
  "customers",
  {
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    rnc: text("rnc").notNull(),
    name: text("name").notNull(),
    email: text("email"),
    electronicReceiver: integer("electronic_receiver", { mode: "boolean" }),
    /** When DGII's directory was last asked (ISO 8601, UTC). */
    checkedAt: text("checked_at"),
    updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.rnc] })],
);

export type CustomerRow = typeof customers.$inferSelect;
