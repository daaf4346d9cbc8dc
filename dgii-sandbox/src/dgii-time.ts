// Date formats DGII uses on the wire. Santo Domingo is UTC-4 all year (no daylight saving), so a
// fixed offset is exact.
const SANTO_DOMINGO_OFFSET_MS = -4 * 60 * 60 * 1000;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `yyyy-MM-ddTHH:mm:ssZ`, the "universal sortable" format of the token's expira/expedido. */
export function universal(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Local Santo Domingo time with offset, as in the seed's `fecha`: 2019-03-13T14:33:32.8617792-04:00. */
export function santoDomingoIso(date: Date): string {
  const local = new Date(date.getTime() + SANTO_DOMINGO_OFFSET_MS);
  const fraction = pad(local.getUTCMilliseconds(), 3) + "0000";
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.${fraction}-04:00`
  );
}

/** `dd-MM-yyyy HH:mm:ss` in Santo Domingo time (FechaHoraAcuseRecibo, FechaHoraFirma). */
export function dgiiDateTime(date: Date): string {
  const local = new Date(date.getTime() + SANTO_DOMINGO_OFFSET_MS);
  return (
    `${pad(local.getUTCDate())}-${pad(local.getUTCMonth() + 1)}-${local.getUTCFullYear()} ` +
    `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`
  );
}

/** Today's date in Santo Domingo as a comparable `yyyymmdd` number. */
export function santoDomingoDay(date: Date): number {
  const local = new Date(date.getTime() + SANTO_DOMINGO_OFFSET_MS);
  return local.getUTCFullYear() * 10000 + (local.getUTCMonth() + 1) * 100 + local.getUTCDate();
}

/** Parses DGII's `dd-MM-yyyy` into a comparable `yyyymmdd` number, or null if malformed. */
export function dgiiDay(text: string): number | null {
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
  if (!match) return null;
  const [, dd, mm, yyyy] = match;
  return Number(yyyy) * 10000 + Number(mm) * 100 + Number(dd);
}
