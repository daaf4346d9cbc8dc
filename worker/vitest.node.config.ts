// The worker's Node-side tests: what needs system tools workerd cannot run (pdftoppm, zbarimg,
// pdftotext), against the same modules the worker serves, and the local stacks. Two projects: the
// files that run `npm start` one after another (each builds the POS and the console into the same
// folder), after the others, whose stacks and ports are their own, two at a time (on 2 cores
// vitest's default is one: these files mostly wait on their stacks).
import { defineConfig } from "vitest/config";

const NPM_START = ["test-node/start.test.ts", "test-node/start-crash.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: "worker-node", include: ["test-node/**/*.test.ts"], exclude: NPM_START, maxWorkers: 2 },
      },
      { extends: true, test: { name: "worker-node npm start", include: NPM_START, maxWorkers: 1 } },
    ],
  },
});
