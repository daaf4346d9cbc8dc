// RFC 4180 CSV for report downloads. Text that a spreadsheet would run as a formula is prefixed
// with an apostrophe (CSV injection); numbers and dates are left alone.

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA = /^[=+@\t\r]/;

function field(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: readonly Record<string, CsvValue>[]): string {
  const lines = [columns.map(field).join(",")];
  for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(","));
  return lines.join("\r\n") + "\r\n";
}
