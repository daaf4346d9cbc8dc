// Spanish (Dominican Republic) presentation: money as RD$ with es-DO grouping, dates in Santo Domingo.
const DATE_TIME = new Intl.DateTimeFormat("es-DO", { dateStyle: "short", timeStyle: "short", timeZone: "America/Santo_Domingo" });

/** "1234.5" → "RD$1,234.50", from the decimal text (no floating point). */
export function money(amount: string): string {
  const negative = amount.startsWith("-");
  const [int = "0", frac = ""] = amount.replace("-", "").split(".");
  const grouped = BigInt(int || "0").toLocaleString("es-DO");
  return `${negative ? "-" : ""}RD$${grouped}.${frac.padEnd(2, "0").slice(0, 2)}`;
}

export function dateTime(iso: string): string {
  return DATE_TIME.format(new Date(iso));
}

export const TIPO_NOMBRE: Record<string, string> = {
  "31": "Factura de Crédito Fiscal Electrónica",
  "32": "Factura de Consumo Electrónica",
  "34": "Nota de Crédito Electrónica",
};
