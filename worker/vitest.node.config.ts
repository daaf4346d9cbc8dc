// The worker's Node-side tests: what needs system tools workerd cannot run (pdftoppm, zbarimg,
// pdftotext), against the same modules the worker serves.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "worker-node",
    include: ["test-node/**/*.test.ts"],
    testTimeout: 60_000,
  },
});
