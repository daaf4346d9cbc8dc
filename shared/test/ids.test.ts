import { describe, expect, it } from "vitest";
import {
  cedulaCheckDigit,
  eNcfProblems,
  formatENcf,
  isValidCedula,
  isValidRnc,
  parseENcf,
  rncCheckDigit,
  rncProblems,
  verifyRncOrCedula,
} from "../src/ids.ts";

describe("RNC check digit (modulo 11)", () => {
  // Real RNCs from DGII's documents, samples and certification test sets.
  it.each([
    "130862346",
    "131880738",
    "131880681",
    "133470616",
    "132641566",
    "133009889",
    "130939616",
    "401506254",
    "101010632",
    "130359334",
  ])("%s verifies", (rnc) => {
    expect(rncCheckDigit(rnc.slice(0, 8))).toBe(Number(rnc[8]));
    expect(isValidRnc(rnc)).toBe(true);
  });
  it.each(["130862345", "131880739", "401506250"])("%s does not", (rnc) => {
    expect(isValidRnc(rnc)).toBe(false);
    expect(verifyRncOrCedula(rnc)).toEqual({ ok: false, kind: "rnc", reason: "check_digit" });
  });
});

describe("cédula check digit (Luhn)", () => {
  it.each([
    ["00113918205", true],
    ["00116454281", true],
    ["22400000000", true],
    ["00113918206", false],
    ["40200700675", false],
  ] as const)("%s → %s", (ced, ok) => {
    expect(cedulaCheckDigit(ced.slice(0, 10)) === Number(ced[10])).toBe(ok);
    expect(isValidCedula(ced)).toBe(ok);
  });
});

describe("rncProblems", () => {
  it.each([
    ["131880681", []],
    [131880681, []],
    ["00113918205", []],
    ["131880682", [["rnc_check_digit", "warning"]]],
    ["00113918206", [["rnc_check_digit", "warning"]]],
    ["1318806", [["invalid_rnc", "error"]]],
    ["13188068a", [["invalid_rnc", "error"]]],
    ["1234567890", [["invalid_rnc", "error"]]],
    [null, [["invalid_rnc", "error"]]],
    [{}, [["invalid_rnc", "error"]]],
  ] as const)("%j", (value, expected) => {
    const problems = rncProblems(value, "/Encabezado/Emisor/RNCEmisor", "RNCEmisor");
    expect(problems.map((p) => [p.code, p.severity])).toEqual(expected);
    for (const p of problems) {
      expect(p.path).toBe("/Encabezado/Emisor/RNCEmisor");
      expect(p.messageEs.length).toBeGreaterThan(0);
    }
  });
});

describe("e-NCF", () => {
  it.each([
    ["E310000000001", { tipo: "31", secuencia: "0000000001" }],
    ["E479999999999", { tipo: "47", secuencia: "9999999999" }],
    ["E300000000001", undefined],
    ["B010000000001", undefined],
    ["E31000000001", undefined],
    ["e310000000001", undefined],
    [310000000001, undefined],
  ] as const)("parse %j", (value, expected) => {
    expect(parseENcf(value)).toEqual(expected);
  });

  it.each([
    ["E310000000001", "31", []],
    ["E320000000001", "31", ["encf_type_mismatch"]],
    ["E31000000001", "31", ["invalid_encf"]],
    [undefined, "31", ["invalid_encf"]],
  ] as const)("%j for type %s", (value, tipo, codes) => {
    expect(eNcfProblems(value, tipo, "/Encabezado/IdDoc/eNCF").map((p) => p.code)).toEqual(codes);
  });

  it("formats", () => {
    expect(formatENcf("34", 42)).toBe("E340000000042");
    expect(() => formatENcf("31", 0)).toThrow();
    expect(() => formatENcf("31", 10_000_000_000n)).toThrow();
  });
});
