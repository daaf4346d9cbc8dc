// The client against the real worker: one private local stack (`wrangler dev` of a frozen bundle
// beside its own DGII sandbox, test/global-setup.ts) serves every test file. Node only.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "sdk",
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
