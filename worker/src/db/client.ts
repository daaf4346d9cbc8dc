import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

export type Db = ReturnType<typeof database>;

/** A drizzle handle over the D1 binding (cheap: one per request). */
export function database(d1: D1Database) {
  return drizzle(d1, { schema });
}
