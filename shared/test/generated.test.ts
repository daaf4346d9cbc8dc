// The committed generated tables must be exactly what the scripts produce from the DGII kit.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const shared = join(import.meta.dirname, "..");
describe.each([
  ["gen-catalogs.ts", "catalogs.ts"],
  ["gen-obligations.ts", "obligations.ts"],
])("%s", (script, generated) => {
  it(`reproduces src/generated/${generated}`, () => {
    const out = join(mkdtempSync(join(tmpdir(), "ecf-gen-")), generated);
    execFileSync(process.execPath, ["--import", "tsx", join(shared, "scripts", script)], {
      env: { ...process.env, ECF_GEN_OUT: out },
      stdio: "pipe",
    });
    expect(readFileSync(out, "utf8")).toBe(readFileSync(join(shared, "src", "generated", generated), "utf8"));
  });
});
