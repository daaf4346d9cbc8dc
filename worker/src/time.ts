// Calendar values in America/Santo_Domingo, which has been UTC-4 all year (no DST) since 1974.
const DR_OFFSET_MS = -4 * 60 * 60 * 1000;

/** yyyy-MM-dd in the Dominican Republic at instant `now`. */
export function drIsoDate(now: Date): string {
  return new Date(now.getTime() + DR_OFFSET_MS).toISOString().slice(0, 10);
}

/** yyyy-MM in the Dominican Republic: the month a receipt counts against the quota. */
export function drMonth(now: Date): string {
  return drIsoDate(now).slice(0, 7);
}
