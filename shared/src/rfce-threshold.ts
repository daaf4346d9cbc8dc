// The DOP 250,000 line that splits consumer invoices (E32): from it up, DGII receives the whole
// e-CF and the buyer must be named; below it, DGII receives the RFCE summary and the timbre takes
// the short consultatimbrefc form.
import { compare, dec, ZERO, type Decimal } from "./money.ts";
import { decimalOf, objAt, textOf } from "./totals-read.ts";

/** E32 at or above this amount is sent whole to DGII and identifies the buyer; below, DGII gets the RFCE summary. */
export const E32_RFCE_THRESHOLD: Decimal = dec("250000.00");

/** An E32 total under the threshold. */
export function isUnderRfceThreshold(montoTotal: Decimal): boolean {
  return compare(montoTotal, E32_RFCE_THRESHOLD) < 0;
}

/** E32 below 250,000 DOP: DGII receives the RFCE summary instead of the full e-CF. */
export function isRfceSummary(document: unknown): boolean {
  const tipo = textOf(objAt(document, "Encabezado", "IdDoc"), "TipoeCF");
  if (tipo !== "32") return false;
  return isUnderRfceThreshold(rfceMontoTotal(document) ?? ZERO);
}

/** The document's MontoTotal as a decimal; undefined when absent or not a number. */
export function rfceMontoTotal(document: unknown): Decimal | undefined {
  return decimalOf(objAt(document, "Encabezado", "Totales"), "MontoTotal");
}
