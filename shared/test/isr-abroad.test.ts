// The ISR cases an E47 offers: one per Código Tributario article, each an exact rate that the
// money helpers apply half-up to a line (never a float).
import { describe, expect, it } from "vitest";
import { ISR_ABROAD_CASES } from "../src/isr-abroad.ts";
import { dec, formatDecimal, percentOf, roundHalfUp } from "../src/money.ts";

describe("ISR withheld from a payment abroad", () => {
  it("offers arts. 305 (27 %), 306 and 308 (10 %), one case per article, in Spanish", () => {
    expect(ISR_ABROAD_CASES.map((c) => [c.article, c.rate])).toEqual([
      ["305", "27"],
      ["306", "10"],
      ["308", "10"],
    ]);
    for (const c of ISR_ABROAD_CASES)
      expect(c.label).toMatch(new RegExp(`^${c.rate} %: .+ \\(art\\. ${c.article}\\)$`));
  });

  it("withholds exactly, half-up to cents", () => {
    const withheld = (amount: string, rate: string) => formatDecimal(roundHalfUp(percentOf(dec(amount), dec(rate))), 2);
    expect(withheld("12345.67", "10")).toBe("1234.57");
    expect(withheld("5000", "27")).toBe("1350.00");
    expect(withheld("0.05", "10")).toBe("0.01");
  });
});
