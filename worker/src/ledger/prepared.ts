// Drizzle builds a query's SQL text anew every time it runs, and in the ledger objects building
// costs more than SQLite running it. The queries every receipt makes are built once per object
// (per drizzle handle), with placeholders, and then only run with their values.
import { sql } from "drizzle-orm";

/** A query built on first use for each database handle, reused from then on. */
export function preparedOnce<Db extends object, Query>(build: (db: Db) => Query): (db: Db) => Query {
  const built = new WeakMap<Db, Query>();
  return (db) => {
    let query = built.get(db);
    if (!query) built.set(db, (query = build(db)));
    return query;
  };
}

/** A named value given when the prepared query runs (as SQL, so `set` and `values` take it too). */
export const param = (name: string) => sql`${sql.placeholder(name)}`;
