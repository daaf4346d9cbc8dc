// The worker as a browser and an HTTP client meet it: Debian's Chromium (playwright-core) on /docs
// and the published /openapi.json, against one `wrangler dev` with the docs assets in place
// (test-browser/global-setup.ts). Node only.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "worker-browser",
    include: ["test-browser/**/*.test.ts"],
    globalSetup: ["./test-browser/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
