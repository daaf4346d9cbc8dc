// Spanish (Dominican Republic) presentation on the till: dates in Santo Domingo and the receipt
// types' names (amounts are the UI kit's, shared with the console).

const DATE_TIME = new Intl.DateTimeFormat("es-DO", {
  dateStyle: "short",
  timeStyle: "short",
  timeZone: "America/Santo_Domingo",
});

export function dateTime(iso: string): string {
  return DATE_TIME.format(new Date(iso));
}

export const TIPO_NOMBRE: Record<string, string> = {
  "31": "Factura de Crédito Fiscal Electrónica",
  "32": "Factura de Consumo Electrónica",
  "34": "Nota de Crédito Electrónica",
};
