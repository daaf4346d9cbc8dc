import { sql } from "drizzle-orm";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { companies } from "./tables.ts";

/**
 * One DGII certification run per issuer (worker/src/certification/run.ts): the run's whole state
 * as JSON, small and written a few times a day, so a restart of the worker resumes it.
 */
export const certificationRuns = sqliteTable("certification_runs", {
  companyId: text("company_id")
    .primaryKey()
    .references(() => companies.id),
  state: text("state").notNull(),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});
