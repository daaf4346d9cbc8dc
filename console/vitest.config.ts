import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "console", environment: "node", include: ["test/**/*.test.ts"], testTimeout: 180_000 },
});
