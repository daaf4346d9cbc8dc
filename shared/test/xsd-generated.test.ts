import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DGII_KIT } from "./support/kit.ts";

const shared = resolve(import.meta.dirname, "..");

describe("generated XSD model", () => {
  it("is up to date with the official schemas (regenerating gives the committed files)", () => {
    const out = mkdtempSync(join(tmpdir(), "xsd-model-"));
    try {
      execFileSync(
        process.execPath,
        [
          join(shared, "../node_modules/tsx/dist/cli.mjs"),
          join(shared, "scripts/gen-xsd-model.ts"),
          `${DGII_KIT}/xsd`,
          out,
        ],
        { stdio: "pipe" },
      );
      for (const file of ["xsd-model.ts", "xsd-sources.ts"]) {
        expect(readFileSync(join(out, file), "utf8"), file).toBe(
          readFileSync(join(shared, "src/generated", file), "utf8"),
        );
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
