import { sql } from "drizzle-orm";
import { text } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 strings in UTC; dates DGII prints are ISO dates (yyyy-MM-dd).
export const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);
/** Set by the code on every change (SQLite cannot add a column with a computed default). */
export const updatedAt = () => text("updated_at");
