// RFC 4180 CSV for every CSV the service writes (reports, the catalogue, the archive's index). Text
// that a spreadsheet would run as a formula (= + - @, tab, CR first) is prefixed with an apostrophe
// (CSV injection, OWASP); numbers, and text that is just a signed decimal ("-18.54"), are left alone.

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA = /^[=+\-@\t\r]/;
const SIGNED_DECIMAL = /^-\d+(\.\d+)?$/;

/** Whether a text cell must be guarded: a spreadsheet would read it as a formula. */
export const looksLikeFormula = (text: string) => FORMULA.test(text) && !SIGNED_DECIMAL.test(text);

function field(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && looksLikeFormula(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: readonly Record<string, CsvValue>[]): string {
  return csvRow(columns) + rows.map((row) => csvRow(columns, row)).join("");
}

/** One line with its CRLF: the row's values in column order, or the header when no row is given. */
export function csvRow(columns: readonly string[], row?: Record<string, CsvValue>): string {
  return (row ? columns.map((c) => field(row[c])) : columns.map(field)).join(",") + "\r\n";
}
