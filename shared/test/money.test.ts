import { describe, expect, it } from "vitest";
import {
  add,
  dec,
  distribute,
  divide,
  formatDecimal,
  formatMoney,
  integerDigits,
  mul,
  parseDecimal,
  percentOf,
  roundHalfUp,
  sub,
  sum,
  toMinorUnits,
} from "../src/money.ts";

describe("parseDecimal", () => {
  it.each([
    ["100.00", "100.00"],
    [100, "100"],
    [0.1, "0.1"],
    ["-5.5", "-5.5"],
    ["+7", "7"],
    [".5", "0.5"],
    ["5.", "5"],
    [1e21, "1000000000000000000000"],
    [1.5e-7, "0.00000015"],
    ["9999999999999999.99", "9999999999999999.99"],
    // 15 digits go through a double, 16 and more through the text: both exact.
    ["999999999999.999", "999999999999.999"],
    ["9007199254740993", "9007199254740993"],
    ["-0012.50", "-12.50"],
    ["999999999999999", "999999999999999"],
    ["0.000000000000001", "0.000000000000001"],
    ["00000000000000001.5", "1.5"],
    ["-0", "0"],
  ] as const)("%j → %s", (input, text) => {
    const d = parseDecimal(input);
    expect(d).toBeDefined();
    expect(formatDecimal(d!)).toBe(text);
  });

  it.each([
    [""],
    ["1,5"],
    [" 1"],
    ["abc"],
    [NaN],
    [Infinity],
    [null],
    [{}],
    [[]],
    ["."],
    ["1e5e5"],
    [true],
    ["-"],
    ["+"],
    ["1.2.3"],
    ["１"],
    ["1 "],
    ["--1"],
  ])("rejects %j", (input) => {
    expect(parseDecimal(input)).toBeUndefined();
  });
});

describe("roundHalfUp (informe-tecnico §13)", () => {
  it.each([
    ["750.5212", "750.52"], // tercer decimal < 5
    ["750.5276", "750.53"], // tercer decimal >= 5
    ["750.525", "750.53"],
    ["750.5249999", "750.52"],
    ["0.005", "0.01"],
    ["0.004", "0.00"],
    ["-0.005", "-0.01"],
    ["-750.5276", "-750.53"],
    ["9999999999999999.995", "10000000000000000.00"],
    ["12", "12.00"],
    ["1.1", "1.10"],
  ])("%s → %s", (input, expected) => {
    expect(formatDecimal(roundHalfUp(dec(input)), 2)).toBe(expected);
  });

  it("rounds to other scales", () => {
    expect(formatDecimal(roundHalfUp(dec("1.23456"), 4))).toBe("1.2346");
    expect(formatDecimal(roundHalfUp(dec("1.5"), 0))).toBe("2");
  });
});

describe("arithmetic is exact", () => {
  it("keeps 16 integer digits exact (floats would not)", () => {
    const a = dec("9999999999999999.99");
    const b = dec("0.01");
    expect(formatDecimal(add(a, b))).toBe("10000000000000000.00");
    expect(formatDecimal(sub(a, b))).toBe("9999999999999999.98");
    expect(integerDigits(a)).toBe(16);
    // the float sum is off: 9999999999999999.99 is not representable as a double
    expect(String(Number("9999999999999999.99"))).not.toBe("9999999999999999.99");
  });

  it.each([
    ["0.1", "0.2", "0.3"],
    ["100.33", "5.50", "105.83"],
    ["-1", "0.99", "-0.01"],
  ])("%s + %s = %s", (a, b, c) => {
    expect(formatDecimal(add(dec(a), dec(b)), 2)).toBe(formatDecimal(dec(c), 2));
  });

  it.each([
    ["5.50", "100.33", "551.8150"],
    ["10.25", "555.44", "5693.2600"],
    ["2", "333.25", "666.50"],
  ])("%s × %s = %s", (a, b, c) => {
    expect(formatDecimal(mul(dec(a), dec(b)))).toBe(c);
  });

  it.each([
    ["1000.00", "58.5", 2, "17.09"],
    ["18.00", "58.1234", 2, "0.31"],
    ["100", "3", 2, "33.33"],
    ["200", "3", 2, "66.67"],
    ["-200", "3", 2, "-66.67"],
    ["118.00", "1.18", 2, "100.00"],
    ["1", "8", 4, "0.1250"],
  ] as const)("%s ÷ %s to %i decimals = %s", (a, b, scale, c) => {
    expect(formatDecimal(divide(dec(a), dec(b), scale))).toBe(c);
  });

  it("percentOf uses whole-number rates", () => {
    expect(formatMoney(percentOf(dec("1000.00"), dec("18")))).toBe("180.00");
    expect(formatMoney(percentOf(dec("0.03"), dec("18")))).toBe("0.01");
  });

  it("sum, minor units, and format never round implicitly", () => {
    expect(formatMoney(sum([dec("0.1"), dec("0.2"), dec("0.3")]))).toBe("0.60");
    expect(toMinorUnits(dec("12.34"))).toBe(1234n);
    expect(() => toMinorUnits(dec("12.345"))).toThrow();
    expect(() => formatDecimal(dec("1.234"), 2)).toThrow();
    expect(formatDecimal(dec("1.200"), 2)).toBe("1.20");
  });
});

describe("distribute: parts add up to the whole", () => {
  it.each([
    [100, [1, 1, 1], [34, 33, 33]],
    [5, [0, 1, 1], [0, 3, 2]],
    [-100, [1, 1, 1], [-34, -33, -33]],
    [0, [0, 0], [0, 0]],
    [7, [5, 0, 0], [7, 0, 0]],
    [10, [1, 2, 2], [2, 4, 4]],
  ])("%s over %j → %j", (total, weights, parts) => {
    expect(distribute(BigInt(total), weights.map(BigInt))).toEqual(parts.map(BigInt));
  });

  it("holds for many random totals and weights", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const weights = Array.from({ length: 1 + rand(4) }, () => BigInt(rand(3) === 0 ? 0 : rand(1_000_000_00)));
      const wsum = weights.reduce((a, b) => a + b, 0n);
      const total = wsum === 0n ? 0n : BigInt(rand(1_000_000_00));
      const parts = distribute(total, weights);
      expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
      parts.forEach((p, k) => {
        if (weights[k] === 0n) expect(p).toBe(0n);
        const exact = Number(total * weights[k]!) / Number(wsum || 1n);
        expect(Math.abs(Number(p) - exact)).toBeLessThan(1.0001);
      });
    }
  });
});
