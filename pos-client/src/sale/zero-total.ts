// A sale that comes to RD$0.00 (a 100 % discount, a gift): a consumer receipt (E32) is issued only
// once the cashier confirms it; a tax-credit invoice (E31) for nothing is refused, as it would
// give the buyer a fiscal credit with no sale behind it.
import { isZero, type Decimal } from "@ecf/shared/money";

export type ZeroTotalVerdict = "fine" | "needs-confirmation" | "refused";

export function zeroTotalVerdict(total: Decimal, tipoeCF: "31" | "32", confirmed: boolean): ZeroTotalVerdict {
  if (!isZero(total)) return "fine";
  if (tipoeCF === "31") return "refused";
  return confirmed ? "fine" : "needs-confirmation";
}

export const ZERO_TOTAL_MESSAGES = {
  refused: "Una factura de crédito fiscal (E31) no puede ser por RD$0.00: revise los descuentos.",
  "needs-confirmation": "El total es RD$0.00. Confirme si de verdad desea emitir el comprobante sin cobro.",
} as const;
