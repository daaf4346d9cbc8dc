// What a month object does when it starts, before it serves anything (inside its
// blockConcurrencyWhile): its tables brought to the current schema, then the claims of the
// instance before it released.
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../migrations/month/migrations.js";
import type { MonthDb } from "./month-receipts.ts";
import { releaseTasksOfDeadInstance } from "./month-tasks.ts";

export async function openMonth(db: MonthDb, storage: DurableObjectStorage): Promise<void> {
  await migrate(db, migrations);
  // A claim found at start was the previous instance's, which died mid-task: due again at once
  // (webhooks are at least once).
  releaseTasksOfDeadInstance(storage);
}
