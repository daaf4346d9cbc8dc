// Spanish (Dominican Republic) presentation: money as RD$ with es-DO grouping, dates in Santo Domingo.
import { dec, formatMoney } from "@ecf/shared/money";

const DATE_TIME = new Intl.DateTimeFormat("es-DO", {
  dateStyle: "short",
  timeStyle: "short",
  timeZone: "America/Santo_Domingo",
});

/** "1234.5" → "RD$1,234.50", from the decimal text (no floating point), rounded half up to cents. */
export function money(amount: string): string {
  const cents = formatMoney(dec(amount));
  const negative = cents.startsWith("-");
  const [int = "0", frac = "00"] = cents.replace("-", "").split(".");
  return `${negative ? "-" : ""}RD$${BigInt(int).toLocaleString("es-DO")}.${frac}`;
}

export function dateTime(iso: string): string {
  return DATE_TIME.format(new Date(iso));
}

export const TIPO_NOMBRE: Record<string, string> = {
  "31": "Factura de Crédito Fiscal Electrónica",
  "32": "Factura de Consumo Electrónica",
  "34": "Nota de Crédito Electrónica",
};
