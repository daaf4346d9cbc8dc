// FechaHoraFirma: the signing time as DGII writes it, "dd-MM-yyyy HH:mm:ss" (24 h) in
// America/Santo_Domingo. The clock is passed in. It reads the runtime's tz database when there is
// one (the tests check that it agrees with dgii-time.ts's fixed offset), else that fixed offset.

import { dgiiDateTimeText, formatDgiiDateTime } from "../dgii-time.ts";

const ZONE = "America/Santo_Domingo";

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

/** The signing time for FechaHoraFirma and the QR's FechaFirma: "dd-MM-yyyy HH:mm:ss" in Santo Domingo. */
export function fechaHoraFirma(now: Date): string {
  if (Number.isNaN(now.getTime())) throw new RangeError("fechaHoraFirma: invalid date");
  const f = zoneFormatter();
  if (!f) return formatDgiiDateTime(now);
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(now)) parts[p.type] = p.value;
  return dgiiDateTimeText({
    d: parts.day!,
    m: parts.month!,
    y: parts.year!.padStart(4, "0"),
    hh: parts.hour!,
    mm: parts.minute!,
    ss: parts.second!,
  });
}
