import { describe, expect, it } from "vitest";
import { money } from "@ecf/ui-kit";
import { dateTime } from "../src/format.ts";

describe("es-DO money", () => {
  it.each([
    ["0", "RD$0.00"],
    ["5", "RD$5.00"],
    ["1234.5", "RD$1,234.50"],
    ["1234567.89", "RD$1,234,567.89"],
    ["-826", "-RD$826.00"],
    // Prices may carry 4 decimals: shown rounded half up to cents, never truncated.
    ["10.125", "RD$10.13"],
    ["10.1249", "RD$10.12"],
    ["999999.995", "RD$1,000,000.00"],
    // Far beyond a float's exact range: still exact.
    ["90071992547409931.01", "RD$90,071,992,547,409,931.01"],
  ])("%s → %s", (amount, shown) => {
    expect(money(amount)).toBe(shown);
  });
});

describe("es-DO dates in Santo Domingo", () => {
  it("shows day/month/year and a 12-hour clock at UTC-4, whatever the machine's zone", () => {
    // 02:30 UTC on the 5th is still the 4th, 10:30 p. m., in Santo Domingo.
    const shown = dateTime("2026-03-05T02:30:00Z");
    expect(shown).toMatch(/^4\/3\/26,? 10:30\s?p\.\s?m\.$/);
    expect(dateTime("2026-12-31T16:05:00Z")).toMatch(/^31\/12\/26,? 12:05\s?p\.\s?m\.$/);
  });
});
