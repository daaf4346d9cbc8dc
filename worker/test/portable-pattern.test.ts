// The e-CF request schemas' patterns as /openapi.json writes them (http/portable-pattern.ts): read
// with or without the `u` flag, each accepts and refuses what DGII's pattern (compiled with `u`,
// its Unicode property escapes intact) does, for the values a Dominican document holds: ASCII,
// Spanish letters, other scripts' digits.
import { describe, expect, it } from "vitest";
import { ecfRequestSchema, TIPOS_ECF } from "@ecf/shared";
import { portablePattern, withPortablePatterns } from "../src/http/portable-pattern.ts";

/** Every distinct `pattern` of the ten per-type schemas. */
function patternsOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) patternsOf(item, into);
  else if (typeof schema === "object" && schema !== null)
    for (const [key, value] of Object.entries(schema)) {
      if (key === "pattern" && typeof value === "string") into.add(value);
      else patternsOf(value, into);
    }
  return into;
}

const SAMPLES = [
  "150.00",
  "1500",
  "12.12345",
  "0.5",
  "809-555-1234",
  "8095551234",
  "ventas@empresa.com.do",
  "josé.pérez@correo.do",
  "a b@c.do",
  "República Dominicana",
  "Ñandú",
  "Estados Unidos",
  "D1",
  "123",
  "\u0663\u0664\u0665", // Arabic-Indic digits: \d in an XSD
  "RD$ 10",
  "",
];

describe("portable patterns", () => {
  const patterns = [...TIPOS_ECF.reduce((all, tipo) => patternsOf(ecfRequestSchema(tipo), all), new Set<string>())];
  const unicode = patterns.filter((p) => /\\[pP]\{/.test(p));

  it("finds the schemas' Unicode property escapes, and leaves none in the document's copy", () => {
    expect(unicode.length).toBeGreaterThan(0);
    const portable = TIPOS_ECF.map((tipo) => withPortablePatterns(ecfRequestSchema(tipo)));
    const left = [...portable.reduce((all, schema) => patternsOf(schema, all), new Set<string>())];
    expect(left.filter((p) => /\\[pP]\{/.test(p))).toEqual([]);
  });

  it("means what DGII's pattern means, with the u flag and without it", () => {
    for (const original of unicode) {
      const dgii = new RegExp(original, "u");
      const portable = portablePattern(original);
      for (const flags of ["", "u"]) {
        const read = new RegExp(portable, flags);
        for (const sample of SAMPLES)
          expect(read.test(sample), `${JSON.stringify(sample)} against ${original} (flags "${flags}")`).toBe(
            dgii.test(sample),
          );
      }
    }
  });

  it("keeps a pattern without property escapes as it is", () => {
    expect(portablePattern("^(?:[A-Z]\\d{2}[\\-/]x)$")).toBe("^(?:[A-Z]\\d{2}[\\-/]x)$");
  });
});
