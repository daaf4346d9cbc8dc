// The console's presentation: dates as dd-MM-yyyy in Santo Domingo, typed dates checked, money as the POS shows it.
import { describe, expect, it } from "vitest";
import { money } from "@ecf/ui-kit";
import { currentPeriod, day, dayTime, parseDay, when } from "../src/format.ts";
import { parseRoute } from "../src/router.ts";

describe("dates", () => {
  it("shows an instant as its day in Santo Domingo (UTC-4), dd-MM-yyyy", () => {
    expect(day("2026-12-01T02:30:00.000Z")).toBe("30-11-2026");
    expect(dayTime("2026-12-01T02:30:00.000Z")).toBe("30-11-2026 22:30");
    expect(day("2026-05-07")).toBe("07-05-2026");
    expect(day("07-05-2026")).toBe("07-05-2026");
    expect(day(null)).toBe("—");
  });

  it("keeps DGII's own dd-MM-yyyy HH:mm:ss and converts an ISO instant", () => {
    expect(when("27-11-2026 13:52:40")).toBe("27-11-2026 13:52:40");
    expect(when("2026-11-27T17:52:40.000Z")).toBe("27-11-2026 13:52");
  });

  it("reads a typed dd-MM-yyyy and refuses what is not a date", () => {
    expect(parseDay(" 05-11-2026 ")).toBe("2026-11-05");
    expect(parseDay("31-02-2026")).toBeUndefined();
    expect(parseDay("2026-11-05")).toBeUndefined();
    expect(parseDay("5-11-2026")).toBeUndefined();
  });

  it("names the month of Santo Domingo's today, not UTC's", () => {
    expect(currentPeriod(new Date("2026-12-01T03:00:00.000Z"))).toBe("2026-11");
  });
});

describe("money", () => {
  it("formats decimal text with es-DO grouping, half up to cents, never through a float", () => {
    expect(money("1234567.895")).toBe("RD$1,234,567.90");
    expect(money("-5")).toBe("-RD$5.00");
    expect(money("0.1")).toBe("RD$0.10");
    expect(money(null)).toBe("—");
  });
});

describe("routes", () => {
  it("splits the hash into the page, its decoded parameters and its query", () => {
    const route = parseRoute("#/comprobantes/E310000000001?desde=01-11-2026");
    expect(route).toMatchObject({ page: "comprobantes", params: ["E310000000001"] });
    expect(route.query.get("desde")).toBe("01-11-2026");
    expect(parseRoute("#/invitacion/abc%2Ddef").params).toEqual(["abc-def"]);
    expect(parseRoute("").page).toBe("");
  });
});
