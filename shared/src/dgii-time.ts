/**
 * DGII's dates and times. DGII writes them in Santo Domingo local time, computed here from an
 * instant the caller passes in (no clock here).
 *
 * America/Santo_Domingo has kept UTC−4 all year since 3 December 2000: it has had no daylight
 * saving since 1974, and its only change since then was five weeks on UTC−5 in late 2000 (tz
 * database). A fixed offset is therefore exact for every date an e-CF can carry.
 */
export const SANTO_DOMINGO_OFFSET_MS = -4 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The wall clock of Santo Domingo at an instant, as zero-padded fields. */
export interface SantoDomingoClock {
  d: string;
  m: string;
  y: string;
  hh: string;
  mm: string;
  ss: string;
  ms: string;
}

function santoDomingoClock(instant: Date): SantoDomingoClock {
  const t = instant.getTime();
  if (Number.isNaN(t)) throw new RangeError("invalid date");
  const local = new Date(t + SANTO_DOMINGO_OFFSET_MS);
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

/** `dd-MM-yyyy HH:mm:ss` from clock fields (however they were read). */
export function dgiiDateTimeText(x: Omit<SantoDomingoClock, "ms">): string {
  return `${x.d}-${x.m}-${x.y} ${x.hh}:${x.mm}:${x.ss}`;
}

/** `dd-MM-yyyy` in Santo Domingo time (FechaEmision, FechaVencimientoSecuencia...). */
export function formatDgiiDate(instant: Date): string {
  const x = santoDomingoClock(instant);
  return `${x.d}-${x.m}-${x.y}`;
}

/** `dd-MM-yyyy HH:mm:ss`, 24 h, Santo Domingo time (FechaHoraFirma, FechaHoraAcuseRecibo...). */
export function formatDgiiDateTime(instant: Date): string {
  return dgiiDateTimeText(santoDomingoClock(instant));
}

/** xs:dateTime with the -04:00 offset, as DGII writes the seed's `fecha`. */
export function formatXsDateTime(instant: Date): string {
  const x = santoDomingoClock(instant);
  return `${x.y}-${x.m}-${x.d}T${x.hh}:${x.mm}:${x.ss}.${x.ms}-04:00`;
}

/** Parses `dd-MM-yyyy HH:mm:ss` (Santo Domingo time) into an instant; undefined if malformed. */
export function parseDgiiDateTime(text: string): Date | undefined {
  const m = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [d, mo, y, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s) - SANTO_DOMINGO_OFFSET_MS;
  const back = new Date(t);
  return formatDgiiDateTime(back) === text ? back : undefined;
}

/** Parses `dd-MM-yyyy` into the instant of Santo Domingo midnight; undefined if malformed. */
export function parseDgiiDate(text: string): Date | undefined {
  return parseDgiiDateTime(`${text} 00:00:00`);
}

/** dd-MM-yyyy → days since 1970-01-01 (calendar days), or undefined when not a real date. */
export function dayNumber(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const midnight = parseDgiiDate(text);
  if (!midnight) return undefined;
  return Math.floor((midnight.getTime() + SANTO_DOMINGO_OFFSET_MS) / DAY_MS);
}

/** `yyyy-MM-dd` in Santo Domingo at an instant. */
export function drIsoDate(instant: Date): string {
  const x = santoDomingoClock(instant);
  return `${x.y}-${x.m}-${x.d}`;
}

/** `yyyy-MM` in Santo Domingo: the month a receipt counts against the quota. */
export function drMonth(instant: Date): string {
  return drIsoDate(instant).slice(0, 7);
}

/** The UTC instant (ISO) at which Santo Domingo's day `yyyy-MM-dd` (+ `plusDays`) starts. */
export function drDayStartUtc(isoDate: string, plusDays = 0): string {
  const t = Date.parse(`${isoDate}T00:00:00.000Z`) - SANTO_DOMINGO_OFFSET_MS + plusDays * DAY_MS;
  return new Date(t).toISOString();
}

/** `yyyy-MM-dd` → `dd-MM-yyyy`. */
export function dgiiDateOf(isoDate: string): string {
  return `${isoDate.slice(8, 10)}-${isoDate.slice(5, 7)}-${isoDate.slice(0, 4)}`;
}

/** `dd-MM-yyyy` → `yyyy-MM-dd`, without checking it (for a date already validated). */
export function isoDateFromDgii(dgiiDate: string): string {
  return `${dgiiDate.slice(6, 10)}-${dgiiDate.slice(3, 5)}-${dgiiDate.slice(0, 2)}`;
}

/** `dd-MM-yyyy` → `yyyy-MM-dd`, or undefined when it is not a calendar date. */
export function isoDateOf(dgiiDate: string): string | undefined {
  return parseDgiiDate(dgiiDate) ? isoDateFromDgii(dgiiDate) : undefined;
}
