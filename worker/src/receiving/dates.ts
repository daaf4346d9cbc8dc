/** dd-MM-yyyy (DGII) → yyyy-MM-dd (ISO), or undefined when it is not a calendar date. */
export function isoDateOf(dgiiDate: string): string | undefined {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(dgiiDate);
  if (!m) return undefined;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const t = Date.parse(`${iso}T00:00:00Z`);
  return Number.isNaN(t) || !new Date(t).toISOString().startsWith(iso) ? undefined : iso;
}

/** yyyy-MM-dd → dd-MM-yyyy. */
export function dgiiDateOf(isoDate: string): string {
  const [y, m, d] = isoDate.split("-");
  return `${d}-${m}-${y}`;
}
