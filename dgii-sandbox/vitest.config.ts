import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "dgii-sandbox",
    environment: "node",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    // A file's setup makes RSA keys and starts a sandbox: on 2 loaded cores that has outlasted the
    // default 10 s (every test of the file then skipped).
    hookTimeout: 60_000,
  },
});
