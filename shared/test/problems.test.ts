import { describe, expect, it } from "vitest";
import { jsonPointer, hasErrors } from "../src/index.ts";

describe("jsonPointer", () => {
  it.each([
    [["DetallesItems", 0, "MontoItem"], "/DetallesItems/0/MontoItem"],
    [["a/b", "c~d"], "/a~1b/c~0d"],
    [[], ""],
  ] as const)("%j → %s", (tokens, expected) => {
    expect(jsonPointer(...tokens)).toBe(expected);
  });
  it("hasErrors ignores warnings", () => {
    const w = { path: "", code: "x", message: "", messageEs: "", severity: "warning" as const, rule: "formato-ecf: x" };
    expect(hasErrors([w])).toBe(false);
    expect(hasErrors([w, { ...w, severity: "error" }])).toBe(true);
  });
});
