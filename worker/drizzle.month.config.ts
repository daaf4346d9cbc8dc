import { defineConfig } from "drizzle-kit";

// The month Durable Objects' SQLite (worker/src/ledger): drizzle-kit writes the SQL and a
// migrations.js bundle that the object applies to itself when it starts.
export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./worker/src/ledger/month/month-tables.ts",
  out: "./worker/src/ledger/migrations/month",
});
