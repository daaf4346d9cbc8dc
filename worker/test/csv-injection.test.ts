// Every CSV the service writes goes through reports/csv.ts: a text cell a spreadsheet would run as a
// formula (= + - @, tab, CR first) is guarded with an apostrophe; numbers and signed decimals are not.
import { describe, expect, it } from "vitest";
import { toCsv } from "../src/reports/csv.ts";

const cell = (value: string | number) => toCsv(["x"], [{ x: value }]).split("\r\n")[1];

describe("CSV injection", () => {
  it.each([
    ["=HYPERLINK(1)", "'=HYPERLINK(1)"],
    ["+Sabor", "'+Sabor"],
    ["-2+3", "'-2+3"],
    ["-cmd|' /C calc'!A0", "'-cmd|' /C calc'!A0"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tTab", "'\tTab"],
    ["\rCR", `"'\rCR"`],
    ["-", "'-"],
    ["-18.54", "-18.54"],
    ["-100", "-100"],
    ["Comercial SRL", "Comercial SRL"],
    ["a-b", "a-b"],
  ])("%j is written as %j", (value, written) => {
    expect(cell(value)).toBe(written);
  });

  it("leaves numbers alone", () => {
    expect(cell(-18.54)).toBe("-18.54");
  });
});
