import { getTableColumns, type Table } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./tables.ts";
import * as deviceSchema from "./devices-tables.ts";
import * as receivingSchema from "./receiving-tables.ts";
import * as webhookSchema from "./webhooks-tables.ts";
import * as taxpayerSchema from "./taxpayers-tables.ts";
import * as consoleSchema from "./console-tables.ts";

// Every schema*.ts module is one area's tables; list each here so `db.query.<table>` knows it.
const tables = {
  ...schema,
  ...deviceSchema,
  ...receivingSchema,
  ...webhookSchema,
  ...taxpayerSchema,
  ...consoleSchema,
};

const handle = (d1: D1Database) => drizzle(d1, { schema: tables });
export type Db = ReturnType<typeof handle>;

// Building a handle maps every table's relations (about 1 % of a receipt's CPU when it was made
// per request); it holds no state of a request, so each binding gets one per isolate.
const handles = new WeakMap<D1Database, Db>();

/** The drizzle handle over this D1 binding. */
export function database(d1: D1Database): Db {
  let db = handles.get(d1);
  if (!db) handles.set(d1, (db = handle(d1)));
  return db;
}

/** A row read with plain SQL (columns named as stored) as drizzle reads it: fields by their names, values mapped. */
export function rowOf<T extends Table>(table: T, row: Record<string, unknown>): T["$inferSelect"] {
  return Object.fromEntries(
    Object.entries(getTableColumns(table)).map(([field, column]) => [
      field,
      row[column.name] === null ? null : column.mapFromDriverValue(row[column.name]),
    ]),
  ) as T["$inferSelect"];
}
