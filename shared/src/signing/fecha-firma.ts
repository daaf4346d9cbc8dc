// FechaHoraFirma: the signing time as DGII writes it, "dd-MM-yyyy HH:mm:ss" (24 h) in
// America/Santo_Domingo. The clock is passed in.

const ZONE = "America/Santo_Domingo";
// The Dominican Republic has been on UTC-4 all year, without daylight saving, since 2000.
const FIXED_OFFSET_MINUTES = -4 * 60;

let formatter: Intl.DateTimeFormat | null | undefined;

function zoneFormatter(): Intl.DateTimeFormat | null {
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat("en-US", {
        timeZone: ZONE,
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      formatter = null; // a runtime without time-zone data
    }
  }
  return formatter;
}

const two = (n: number) => String(n).padStart(2, "0");

/** dd-MM-yyyy HH:mm:ss at UTC-4, without Intl. */
export function fechaHoraFirmaFixedOffset(now: Date): string {
  const t = new Date(now.getTime() + FIXED_OFFSET_MINUTES * 60_000);
  return `${two(t.getUTCDate())}-${two(t.getUTCMonth() + 1)}-${t.getUTCFullYear()} ${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}`;
}

/** The signing time for FechaHoraFirma and the QR's FechaFirma: "dd-MM-yyyy HH:mm:ss" in Santo Domingo. */
export function fechaHoraFirma(now: Date): string {
  if (Number.isNaN(now.getTime())) throw new RangeError("fechaHoraFirma: invalid date");
  const f = zoneFormatter();
  if (!f) return fechaHoraFirmaFixedOffset(now);
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(now)) parts[p.type] = p.value;
  const year = parts.year!.padStart(4, "0");
  return `${parts.day}-${parts.month}-${year} ${parts.hour}:${parts.minute}:${parts.second}`;
}
