import { describe, expect, it } from "vitest";
import { dayNumber } from "../src/dgii-time.ts";
import { availableBalance, indicadorNotaCredito, type AcceptedNote, type ProposedNote } from "../src/credit-notes.ts";

const credit = (code: AcceptedNote["codigoModificacion"], monto: string): AcceptedNote => ({
  tipo: "34",
  codigoModificacion: code,
  montoTotal: monto,
});
const debit = (monto: string): AcceptedNote => ({ tipo: "33", codigoModificacion: "3", montoTotal: monto });

describe("availableBalance", () => {
  it.each([
    ["nothing accepted", "1000.00", [], "1000.00"],
    ["one partial credit", "1000.00", [credit("3", "300.00")], "700.00"],
    ["two partial credits", "1000.00", [credit("3", "300.00"), credit("3", "699.99")], "0.01"],
    ["a debit note raises the balance", "1000.00", [debit("200.00"), credit("3", "1100.00")], "100.00"],
    ["an annulment closes it", "1000.00", [credit("1", "1000.00")], "0.00"],
    ["a text correction changes nothing", "1000.00", [credit("2", "0.00")], "1000.00"],
    ["16 integer digits", "9999999999999999.99", [credit("3", "0.01")], "9999999999999999.98"],
  ] as const)("%s", (_name, total, notes, available) => {
    expect(availableBalance(total, notes).available).toBe(available);
  });

  const p = (code: ProposedNote["codigoModificacion"], monto: string, tipo: "33" | "34" = "34"): ProposedNote => ({
    tipo,
    codigoModificacion: code,
    montoTotal: monto,
  });
  it.each([
    ["partial credit within balance", [credit("3", "300.00")], p("3", "700.00"), { ok: true }],
    [
      "partial credit beyond balance",
      [credit("3", "300.00")],
      p("3", "700.01"),
      { ok: false, reason: "exceeds_available" },
    ],
    [
      "annulment after a partial credit",
      [credit("3", "300.00")],
      p("1", "700.00"),
      { ok: false, reason: "annulment_after_partial_credit" },
    ],
    ["annulment of an untouched receipt", [], p("1", "1000.00"), { ok: true }],
    ["annulment larger than the receipt", [], p("1", "1000.01"), { ok: false, reason: "exceeds_available" }],
    [
      "anything after an annulment",
      [credit("1", "1000.00")],
      p("3", "1.00"),
      { ok: false, reason: "already_annulled" },
    ],
    ["text correction must be 0.00", [], p("2", "5.00"), { ok: false, reason: "invalid_amount" }],
    ["text correction at 0.00", [credit("3", "1000.00")], p("2", "0.00"), { ok: true }],
    ["debit note", [credit("3", "1000.00")], p("3", "50.00", "33"), { ok: true }],
    ["negative amount", [], p("3", "-1.00"), { ok: false, reason: "invalid_amount" }],
    ["garbage amount", [], p("3", "abc"), { ok: false, reason: "invalid_amount" }],
  ] as const)("%s", (_name, notes, proposed, verdict) => {
    expect(availableBalance("1000.00", notes, proposed).proposal).toEqual(verdict);
  });
});

describe("IndicadorNotaCredito (more than 30 days)", () => {
  it.each([
    ["31-01-2025", "01-01-2025", "0"], // 30 days
    ["01-02-2025", "01-01-2025", "1"], // 31 days
    ["29-02-2024", "30-01-2024", "0"], // leap year: 30 days
    ["01-03-2024", "30-01-2024", "1"],
    ["15-01-2025", "20-01-2025", "0"],
    ["31-02-2025", "01-01-2025", undefined],
    ["2025-01-01", "01-01-2025", undefined],
  ] as const)("%s vs %s → %s", (nota, modificado, expected) => {
    expect(indicadorNotaCredito(nota, modificado)).toBe(expected);
  });

  it("dayNumber rejects impossible dates", () => {
    expect(dayNumber("29-02-2023")).toBeUndefined();
    expect(dayNumber("29-02-2024")).toBe(dayNumber("28-02-2024")! + 1);
  });
});
