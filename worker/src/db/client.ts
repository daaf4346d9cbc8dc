import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";
import * as deviceSchema from "./schema-devices.ts";
import * as receivingSchema from "./schema-receiving.ts";
import * as webhookSchema from "./schema-webhooks.ts";
import * as taxpayerSchema from "./schema-taxpayers.ts";

// Every schema*.ts module is one area's tables; list each here so `db.query.<table>` knows it.
const tables = { ...schema, ...deviceSchema, ...receivingSchema, ...webhookSchema, ...taxpayerSchema };

export type Db = ReturnType<typeof database>;

/** A drizzle handle over the D1 binding (cheap: one per request). */
export function database(d1: D1Database) {
  return drizzle(d1, { schema: tables });
}
