// drizzle-kit's migrations.js imports each migration's SQL as text (wrangler's Text rule).
declare module "*.sql" {
  const sql: string;
  export default sql;
}
