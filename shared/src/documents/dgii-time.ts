/**
 * DGII's date formats. Times are Santo Domingo local time (America/Santo_Domingo, UTC-4 all
 * year, no daylight saving), computed from an instant the caller passes in (no clock here).
 */

const OFFSET_MS = -4 * 60 * 60 * 1000;

function parts(instant: Date): { d: string; m: string; y: string; hh: string; mm: string; ss: string; ms: string } {
  const t = instant.getTime();
  if (Number.isNaN(t)) throw new RangeError("invalid date");
  const local = new Date(t + OFFSET_MS);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return {
    d: p(local.getUTCDate()),
    m: p(local.getUTCMonth() + 1),
    y: p(local.getUTCFullYear(), 4),
    hh: p(local.getUTCHours()),
    mm: p(local.getUTCMinutes()),
    ss: p(local.getUTCSeconds()),
    ms: p(local.getUTCMilliseconds(), 3),
  };
}

/** `dd-MM-yyyy` in Santo Domingo time (FechaEmision, FechaVencimientoSecuencia...). */
export function formatDgiiDate(instant: Date): string {
  const x = parts(instant);
  return `${x.d}-${x.m}-${x.y}`;
}

/** `dd-MM-yyyy HH:mm:ss`, 24 h, Santo Domingo time (FechaHoraFirma, FechaHoraAcuseRecibo...). */
export function formatDgiiDateTime(instant: Date): string {
  const x = parts(instant);
  return `${x.d}-${x.m}-${x.y} ${x.hh}:${x.mm}:${x.ss}`;
}

/** xs:dateTime with the -04:00 offset, as DGII writes the seed's `fecha`. */
export function formatXsDateTime(instant: Date): string {
  const x = parts(instant);
  return `${x.y}-${x.m}-${x.d}T${x.hh}:${x.mm}:${x.ss}.${x.ms}-04:00`;
}

/** Parses `dd-MM-yyyy HH:mm:ss` (Santo Domingo time) into an instant; undefined if malformed. */
export function parseDgiiDateTime(text: string): Date | undefined {
  const m = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [d, mo, y, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s) - OFFSET_MS;
  const back = new Date(t);
  return formatDgiiDateTime(back) === text ? back : undefined;
}

/** Parses `dd-MM-yyyy` into the instant of Santo Domingo midnight; undefined if malformed. */
export function parseDgiiDate(text: string): Date | undefined {
  return parseDgiiDateTime(`${text} 00:00:00`);
}
