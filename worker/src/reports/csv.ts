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
  return csvRow(columns) + rows.map((row) => csvRow(columns, row)).join("");
}

/** One line with its CRLF: the row's values in column order, or the header when no row is given. */
export function csvRow(columns: readonly string[], row?: Record<string, CsvValue>): string {
  return (row ? columns.map((c) => field(row[c])) : columns.map(field)).join(",") + "\r\n";
}
