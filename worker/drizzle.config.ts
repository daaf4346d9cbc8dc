import { defineConfig } from "drizzle-kit";

// drizzle-kit only generates SQL into migrations/; wrangler applies it (never `drizzle-kit push`).
export default defineConfig({
  dialect: "sqlite",
  schema: ["./worker/src/db/tables.ts", "./worker/src/db/*-tables.ts"],
  out: "./migrations",
});
