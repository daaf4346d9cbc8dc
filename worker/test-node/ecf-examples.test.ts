// The request examples of POST /fe/recepcion/ecf (worker/src/generated/ecf-examples.ts) are exactly
// what scripts/generate-openapi-examples.ts writes from shared's factories today, and each one is
// valid against its own type's JSON Schema and no other's (Ajv, JSON Schema 2020-12).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ecfRequestSchema, TIPOS_ECF } from "@ecf/shared";
import { describe, expect, it } from "vitest";
import { root } from "../../scripts/lib.mjs";
import { ECF_REQUEST_EXAMPLES } from "../src/generated/ecf-examples.ts";

describe("the generated e-CF request examples", () => {
  it("are what scripts/generate-openapi-examples.ts writes (run it after changing the factories)", () => {
    const dir = mkdtempSync(join(tmpdir(), "ecf-examples-"));
    try {
      const out = join(dir, "ecf-examples.ts");
      execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts/generate-openapi-examples.ts")], {
        cwd: root,
        env: { ...process.env, ECF_GEN_OUT: out },
        stdio: "pipe",
      });
      expect(readFileSync(out, "utf8")).toBe(readFileSync(join(root, "worker/src/generated/ecf-examples.ts"), "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
  const validators = TIPOS_ECF.map((tipo) => [tipo, ajv.compile(ecfRequestSchema(tipo))] as const);
  it.each(Object.entries(ECF_REQUEST_EXAMPLES))(
    "%s is valid against its type's schema, and only that one",
    (_key, example) => {
      const valid = validators.filter(([, validate]) => validate(example.value)).map(([tipo]) => tipo);
      expect(valid).toEqual([
        String((example.value as { Encabezado: { IdDoc: { TipoeCF: string } } }).Encabezado.IdDoc.TipoeCF),
      ]);
    },
  );
});
