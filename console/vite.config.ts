import { defineConfig } from "vite";

// Served by the worker at /app/ (wrangler [assets] directory dist/, beside the POS in dist/pos).
export default defineConfig({
  base: "/app/",
  build: { outDir: "../dist/app", emptyOutDir: true, target: "es2022", sourcemap: true },
});
