// `npm run sdk:generate` must reproduce the committed sdk/src/generated/ files from the worker's
// /openapi.json as it is served now: a route added or changed without regenerating fails here.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, inject, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const FILES = ["openapi.ts", "idempotent-operations.ts"];

it("npm run sdk:generate reproduces the committed sdk/src/generated files", () => {
  const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts["sdk:generate"];
  expect(script).toBe("node --import tsx scripts/generate-sdk.ts");
  const dir = mkdtempSync(join(tmpdir(), "ecf-sdk-gen-"));
  try {
    // The running test worker's document, so no second stack is started.
    execFileSync(process.execPath, ["--import", "tsx", "scripts/generate-sdk.ts"], {
      cwd: root,
      env: { ...process.env, SDK_WORKER_URL: inject("workerUrl"), SDK_GEN_DIR: dir },
      stdio: "pipe",
    });
    for (const file of FILES) {
      const generated = readFileSync(join(dir, file), "utf8").split("\n");
      const committed = readFileSync(join(root, "sdk/src/generated", file), "utf8").split("\n");
      // Line by line, so a failure shows what differs rather than two long strings.
      const differing = generated.flatMap((line, i) =>
        line === committed[i]
          ? []
          : [`${file}:${i + 1}: generated ${JSON.stringify(line)} / committed ${JSON.stringify(committed[i])}`],
      );
      expect(differing.slice(0, 20), `${file} is stale: run npm run sdk:generate`).toEqual([]);
      expect(generated.length, file).toBe(committed.length);
    }
    expect(readFileSync(join(dir, "idempotent-operations.ts"), "utf8")).toContain('"POST /fe/recepcion/ecf"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
