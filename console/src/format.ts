// Spanish (Dominican Republic) presentation in the console: dates as dd-MM-yyyy in Santo Domingo,
// receipt types and state badges (amounts are the UI kit's, shared with the till).

const PARTS = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Santo_Domingo",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

function parts(date: Date): Record<string, string> {
  return Object.fromEntries(PARTS.formatToParts(date).map((p) => [p.type, p.value]));
}

/** An instant or a date (ISO, or already dd-MM-yyyy) as dd-MM-yyyy. */
export function day(value: string | null | undefined): string {
  if (!value) return "—";
  if (/^\d{2}-\d{2}-\d{4}$/.test(value)) return value;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value.split("-").reverse().join("-");
  const p = parts(new Date(value));
  return `${p.day}-${p.month}-${p.year}`;
}

/** An instant as dd-MM-yyyy HH:mm, Santo Domingo time. */
export function dayTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const p = parts(new Date(iso));
  return `${p.day}-${p.month}-${p.year} ${p.hour}:${p.minute}`;
}

/** Today in Santo Domingo as yyyy-MM (the monthly files' period). */
export function currentPeriod(now = new Date()): string {
  const p = parts(now);
  return `${p.year}-${p.month}`;
}

/** dd-MM-yyyy typed by a person → yyyy-MM-dd, or undefined when it is not such a date. */
export function parseDay(text: string): string | undefined {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text.trim());
  if (!m) return undefined;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const d = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? undefined : iso;
}

export const TIPO_NOMBRE: Record<string, string> = {
  "31": "Crédito Fiscal",
  "32": "Consumo",
  "33": "Nota de Débito",
  "34": "Nota de Crédito",
  "41": "Compras",
  "43": "Gastos Menores",
  "44": "Regímenes Especiales",
  "45": "Gubernamental",
  "46": "Exportaciones",
  "47": "Pagos al Exterior",
};

/** The colour class of a state badge. */
export function estadoClass(estado: string): string {
  if (estado === "Aceptado" || estado === "Recibido") return "ok";
  if (estado === "Aceptado Condicional" || estado === "Contingencia") return "warn";
  if (estado === "Rechazado" || estado === "Fallido" || estado === "No Recibido" || estado === "No Encontrado")
    return "bad";
  return "wait";
}

/** A time as DGII writes it (dd-MM-yyyy HH:mm:ss, kept) or an ISO instant (shown dd-MM-yyyy HH:mm). */
export function when(value: string | null | undefined): string {
  if (!value) return "—";
  return /^\d{4}-\d{2}-\d{2}T/.test(value) ? dayTime(value) : value;
}
