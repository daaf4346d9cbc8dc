import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "pos-client",
    environment: "node",
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    // Hooks start stacks and Chromium: as long as a test may take, not the default 10 s.
    hookTimeout: 120_000,
    // expect.poll awaits a state the page reaches when the machine gets to it: vitest's 1 s default
    // is a race on a loaded 2-core machine, not a limit the product promises.
    expect: { poll: { timeout: 30_000, interval: 100 } },
    // Each browser file waits mostly on its own stack and Chromium (own ports, own state): two at a
    // time even on 2 cores, where vitest's default would run one.
    maxWorkers: 2,
  },
});
