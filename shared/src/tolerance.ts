/**
 * DGII's squaring tolerance (informe-tecnico §12 "Regla de tolerancia. Cuadratura"):
 * - each detail line may differ by ±1.00 from quantity × price (less discounts, plus surcharges);
 * - header totals may differ by ±(number of detail lines) from the totals the format computes.
 * Beyond that DGII does not reject the e-CF: it is "aceptado condicional". See `judgeDifference`.
 */
import { abs, compare, dec, decimal, formatDecimal, sub, type Decimal } from "./money.ts";

export const LINE_TOLERANCE: Decimal = dec("1.00");

/** Global tolerance: one unit per detail line (3 lines → ±3.00). */
export function globalTolerance(lineCount: number): Decimal {
  return decimal(BigInt(Math.max(0, Math.trunc(lineCount))) * 100n, 2);
}

export interface Difference {
  sent: string;
  computed: string;
  difference: string;
  tolerance: string;
  withinTolerance: boolean;
}

/** Compares a sent amount with the computed one; the tolerance bound itself is accepted (≤). */
export function judgeDifference(sent: Decimal, computed: Decimal, tolerance: Decimal): Difference {
  const difference = sub(sent, computed);
  return {
    sent: formatDecimal(sent),
    computed: formatDecimal(computed, Math.max(2, computed.scale)),
    difference: formatDecimal(difference, Math.max(2, difference.scale)),
    tolerance: formatDecimal(tolerance, 2),
    withinTolerance: compare(abs(difference), tolerance) <= 0,
  };
}
