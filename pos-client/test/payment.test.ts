import { formatMoney } from "@ecf/shared/money";
import { describe, expect, it } from "vitest";
import { FORMA_PAGO } from "../src/sale/document.ts";
import { cashChange, paymentFor, type PaymentInput } from "../src/sale/payment.ts";

const input = (over: Partial<PaymentInput>): PaymentInput => ({
  method: "efectivo",
  cash: "",
  card: "",
  transfer: "",
  ...over,
});
const change = (p: ReturnType<typeof paymentFor>) => (typeof p === "object" ? cashChange(p) : undefined);

describe("payments", () => {
  it("cash: the change is what was handed over minus the total; too little is refused", () => {
    const p = paymentFor(input({ cash: "1000" }), "826.00");
    expect(p).toEqual({ method: "efectivo", parts: [{ method: "efectivo", amount: "826.00" }], cashReceived: "1000" });
    expect(formatMoney(change(p)!)).toBe("174.00");
    // Nothing typed: exact cash, no change.
    expect(formatMoney(change(paymentFor(input({}), "826.00"))!)).toBe("0.00");
    expect(paymentFor(input({ cash: "800" }), "826.00")).toMatch(/no cubre/);
  });

  it.each([
    ["tarjeta", "3"],
    ["transferencia", "2"],
  ] as const)("%s: the whole total, FormaPago %s, no change", (method, forma) => {
    const p = paymentFor(input({ method, cash: "5000" }), "267.50");
    expect(p).toEqual({ method, parts: [{ method, amount: "267.50" }] });
    expect(change(p)).toBeNull();
    expect(FORMA_PAGO[method]).toBe(forma);
  });

  it("mixed: cash, card and transfer together, the rest in cash with its change", () => {
    const p = paymentFor(input({ method: "mixto", card: "300", transfer: "200.50", cash: "500" }), "826.00");
    expect(p).toEqual({
      method: "mixto",
      parts: [
        { method: "efectivo", amount: "325.50" },
        { method: "tarjeta", amount: "300.00" },
        { method: "transferencia", amount: "200.50" },
      ],
      cashReceived: "500",
    });
    expect(formatMoney(change(p)!)).toBe("174.50");
  });

  it("mixed: card + transfer covering the total needs no cash", () => {
    const p = paymentFor(input({ method: "mixto", card: "626", transfer: "200" }), "826.00");
    expect(p).toEqual({
      method: "mixto",
      parts: [
        { method: "tarjeta", amount: "626.00" },
        { method: "transferencia", amount: "200.00" },
      ],
    });
    expect(change(p)).toBeNull();
  });

  it.each([
    ["nothing but cash", { card: "", transfer: "" }, /tarjeta o por transferencia/],
    ["card alone covering everything", { card: "826" }, /al menos dos/],
    ["more than the total", { card: "800", transfer: "100" }, /más que el total/],
    ["a negative amount", { card: "-5", transfer: "10" }, /tarjeta: no puede ser negativo/],
    ["too little cash for the cash part", { card: "300", cash: "100" }, /no cubre la parte en efectivo/],
  ])("mixed refuses %s", (_label, over, message) => {
    expect(paymentFor(input({ method: "mixto", ...over }), "826.00")).toMatch(message);
  });
});
