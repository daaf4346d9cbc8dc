import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig, type Plugin } from "vitest/config";
// Free loopback ports for the DGII sandbox and the SMTP sink the tests talk to.
import { freePort, root } from "../scripts/lib.mjs";

// The Workers plugin resolves every module as workerd would (its "browser" fields and conditions),
// and Vite applies that to each environment, also the one that runs the global setup in Node: there
// the DGII sandbox would load xmllint-wasm's browser build, which needs a Web Worker Node lacks.
// So the global setup's environment resolves as Node does (Vitest's own defaults for it).
const globalSetupResolvesForNode: Plugin = {
  name: "global-setup-resolves-for-node",
  configEnvironment: {
    order: "post",
    handler(name, config) {
      if (name !== "__vitest__") return;
      config.resolve ??= {};
      config.resolve.mainFields = [];
      config.resolve.conditions = ["node", "development|production"];
    },
  },
};

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(root, "migrations"));
  // The global setup starts the sandbox on this port; the worker reaches it through its binding.
  process.env.ECF_TEST_SANDBOX_PORT ??= String(await freePort());
  process.env.ECF_TEST_SMTP_PORT ??= String(await freePort());
  const sandboxUrl = `http://127.0.0.1:${process.env.ECF_TEST_SANDBOX_PORT}`;
  return {
    plugins: [
      globalSetupResolvesForNode,
      cloudflareTest({
        main: path.join(import.meta.dirname, "src/index.ts"),
        wrangler: { configPath: path.join(root, "wrangler.toml") },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            JWT_SECRET: "test-jwt-secret-0123456789abcdef0123456789abcdef",
            ADMIN_SECRET: "test-admin-secret",
            MASTER_KEY: "dGVzdC1tYXN0ZXIta2V5LTMyLWJ5dGVzLWxvbmchISE=",
            DGII_TARGET: "sandbox",
            // As deployed: CF-Connecting-IP is the caller's address (tests name their callers with it).
            BEHIND_CLOUDFLARE: "true",
            DGII_SANDBOX_URL: sandboxUrl,
            // Wide margins: on a loaded machine the sandbox's verdict (100 ms) still comes within the
            // request's own polling, and a call is not timed out by the machine's slowness alone.
            DGII_POLL_DELAYS_MS: "200,1000,4000,8000",
            DGII_TIMEOUT_MS: "6000",
            DGII_STATUS_TTL_MS: "0",
            DGII_DIRECTORY_TTL_MS: "0",
            DGII_DIRECTORY_NEGATIVE_TTL_MS: "0",
            SMTP_HOST: "127.0.0.1",
            SMTP_PORT: process.env.ECF_TEST_SMTP_PORT,
          },
        },
      }),
    ],
    test: {
      name: "worker",
      include: ["test/**/*.test.ts"],
      globalSetup: ["./test/global-setup.ts"],
      setupFiles: ["./test/apply-migrations.ts"],
      testTimeout: 60_000,
      // A file's setup may be the first request for the whole OpenAPI document: on 2 loaded cores it
      // has taken more than vitest's default 10 s.
      hookTimeout: 60_000,
      // Test files share one sandbox whose faults are global: run them one after another.
      fileParallelism: false,
    },
  };
});
