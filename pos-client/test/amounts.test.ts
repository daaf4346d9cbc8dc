// The till reads numbers the way it prints them (comma thousands, dot decimals) and says, in
// Spanish, why it refuses one; quantities and discounts keep to the XSD and the configured maximum.
import { formatDecimal, formatMoney } from "@ecf/shared/money";
import { describe, expect, it } from "vitest";
import { DISCOUNT, formatNumber, MONEY, parseNumber, PRICE, quantityRule } from "@ecf/ui-kit";
import type { CartLine } from "../src/sale/document.ts";
import { addOne, setDiscount, setQuantity } from "../src/sale/line-edits.ts";
import { cashChange, paymentFor } from "../src/sale/payment.ts";
import { cashAmount } from "../src/shift/shifts.ts";
import { dec } from "@ecf/shared/money";
import { zeroTotalVerdict } from "../src/sale/zero-total.ts";

const read = (typed: string, rule = MONEY("El monto")) => {
  const r = parseNumber(typed, rule);
  return r.ok ? formatDecimal(r.value) : r.error;
};

describe("one parser for every number of the till", () => {
  it.each([
    ["1,000", "1000"],
    ["2,000.00", "2000"],
    ["1,234.50", "1234.5"],
    ["1234.5", "1234.5"],
    [" 12,345,678.90 ", "12345678.9"],
    ["0", "0"],
  ])("money %s → %s", (typed, value) => expect(read(typed)).toBe(value));

  it.each([
    ["1e3", /exponente/],
    ["1,5", /decimales van con punto/],
    ["1,00,000", /no es un número/],
    ["12,34.5", /no es un número/],
    ["abc", /no es un número/],
    ["-3", /negativo/],
    ["1.2.3", /más de un punto/],
    ["1.555", /a lo sumo 2 decimales/],
    ["", /escriba un número/],
    ["12345678901234567", /16 dígitos enteros/],
  ])("refuses %s with its reason, in Spanish", (typed, reason) => {
    const r = read(typed);
    expect(r).toMatch(/^El monto: /);
    expect(r).toMatch(reason);
  });

  it("prices keep 4 decimals; quantities are positive and at most the configured maximum", () => {
    expect(read("1,275.5025", PRICE)).toBe("1275.5025");
    expect(read("0", quantityRule())).toMatch(/mayor que cero/);
    expect(read("999999999999", quantityRule())).toMatch(/no puede pasar de 9,999/);
    expect(read("10,000", quantityRule("10000"))).toBe("10000");
    expect(read("100.01", DISCOUNT)).toMatch(/no puede pasar de 100/);
  });

  it("formats with comma thousands, exactly", () => {
    expect(formatNumber("1234567.5")).toBe("1,234,567.5");
    expect(formatNumber("1000", 2)).toBe("1,000.00");
    expect(formatNumber("3")).toBe("3");
    expect(formatNumber("90071992547409931.01")).toBe("90,071,992,547,409,931.01");
    // What the till prints it reads back.
    for (const v of ["0.5", "1000", "1234567.89"]) expect(read(formatNumber(v))).toBe(formatDecimal(dec(v)));
  });
});

describe("the fields that use it", () => {
  const line = (): CartLine => ({
    product: { code: "P", name: "Plátano", price: "20.00", itbis: "E", unit: "43", kind: "1" },
    quantity: "1",
    discountPercent: "",
  });

  it("cash typed the Dominican way covers the total (1,000 is a thousand pesos)", () => {
    const p = paymentFor({ method: "efectivo", cash: "1,000", card: "", transfer: "" }, "826.00");
    expect(typeof p === "object" && formatMoney(cashChange(p)!)).toBe("174.00");
    expect(paymentFor({ method: "efectivo", cash: "1e3", card: "", transfer: "" }, "826.00")).toMatch(
      /^El efectivo recibido: .*exponente/,
    );
    const mixed = paymentFor({ method: "mixto", cash: "1,000", card: "1,200.00", transfer: "" }, "2000.00");
    expect(typeof mixed === "object" && mixed.parts.map((x) => x.amount)).toEqual(["800.00", "1200.00"]);
  });

  it("the float and the counted cash read comma thousands", () => {
    expect(cashAmount("2,000.00", "Fondo de caja")).toBe("2000.00");
    expect(cashAmount("1,234.50", "Efectivo contado")).toBe("1234.50");
    expect(() => cashAmount("1,5", "Efectivo contado")).toThrow(/^Efectivo contado: .*punto/);
  });

  it("a quantity or discount the rules refuse leaves the line as it was and says why", () => {
    const l = line();
    for (const [typed, why] of [
      ["0", /mayor que cero/],
      ["-3", /negativo/],
      ["abc", /no es un número/],
      ["1.555", /2 decimales/],
      ["1e3", /exponente/],
      ["999999999999", /no puede pasar de 9,999/],
    ] as const) {
      expect(setQuantity(l, typed)).toMatch(why);
      expect(l.quantity).toBe("1");
    }
    expect(setQuantity(l, "1,000")).toBeUndefined();
    expect(l.quantity).toBe("1000");
    expect(setDiscount(l, "150")).toMatch(/no puede pasar de 100/);
    expect(setDiscount(l, "12.5")).toBeUndefined();
    expect(l.discountPercent).toBe("12.5");
    l.quantity = "9999";
    expect(addOne(l)).toMatch(/9,999/);
    expect(l.quantity).toBe("9999");
  });

  it("a RD$0.00 sale needs a confirmation as an E32 and is refused as an E31", () => {
    expect(zeroTotalVerdict(dec("0.00"), "32", false)).toBe("needs-confirmation");
    expect(zeroTotalVerdict(dec("0.00"), "32", true)).toBe("fine");
    expect(zeroTotalVerdict(dec("0.00"), "31", true)).toBe("refused");
    expect(zeroTotalVerdict(dec("0.01"), "31", false)).toBe("fine");
  });
});
