// DGII's monthly data formats (606, 607, 608) as its pre-validation tool writes the TXT
// (shared/dgii/docs/formato-606-607-608.txt §0): a header `format|RNC|AAAAMM|count`, one record
// per line with its fields between pipes (none after the last), dates AAAAMMDD, amounts with a
// decimal point and two decimals, positive, no thousands separator, every line ending in CRLF
// (VBA's `Print #`, which the tool uses, ends the last line too). Plain ASCII: every field is a
// digit, a code, an e-NCF or an amount.
//
// Open point "blank vs 0.00": both are seen in practice. We write 0.00 in the columns DGII always
// computes or checks (606: 8–11 and 15; 607: 8 and 9) and leave the optional columns empty when
// they hold nothing (withholdings, ITBIS al costo, the additional taxes, the payment forms), as
// the tool leaves an untouched cell. Codes have two digits ("01"), the identification type one.
import { abs, add, dec, formatMoney, isZero, ZERO, type Decimal } from "@ecf/shared";

export type DgiiFormat = "606" | "607" | "608";

/** Records DGII's tool takes per file (secondary sources, §0); more is a warning, not an error. */
export const RECORD_LIMITS: Record<DgiiFormat, number> = { "606": 10_000, "607": 65_000, "608": 4_999 };

/** yyyy-MM-dd → AAAAMMDD; null → empty. */
export function txtDate(isoDate: string | null | undefined): string {
  return isoDate ? isoDate.replace(/-/g, "") : "";
}

/** An amount as DGII writes it: positive, two decimals. `zero` is what a zero (or nothing) is written as. */
export function txtAmount(value: Decimal | string | null | undefined, zero: "0.00" | ""): string {
  if (value === null || value === undefined) return zero;
  const amount = typeof value === "string" ? dec(value) : value;
  return isZero(amount) ? zero : formatMoney(abs(amount));
}

/** Tipo Id from the identification's length: 1 RNC (9 digits), 2 cédula (11); empty when neither. */
export function tipoId(rncOrCedula: string | null | undefined): "1" | "2" | "" {
  if (!rncOrCedula) return "";
  return /^\d{9}$/.test(rncOrCedula) ? "1" : /^\d{11}$/.test(rncOrCedula) ? "2" : "";
}

/** The file's first line: `format|RNC|AAAAMM|count`, CRLF. */
export function txtHeader(format: DgiiFormat, rnc: string, periodo: string, count: number): string {
  return `${format}|${rnc}|${periodo}|${count}\r\n`;
}

/** One record's line: its fields between pipes, CRLF. */
export function txtRecord(fields: readonly string[]): string {
  return `${fields.join("|")}\r\n`;
}

/** The name DGII's tool gives the file. */
export function dgiiFileName(format: DgiiFormat, rnc: string, periodo: string): string {
  return `DGII_F_${format}_${rnc}_${periodo}.TXT`;
}

/** AAAAMM → yyyy-MM, or undefined when it is not a month. */
export function monthOfPeriodo(periodo: string): string | undefined {
  const m = /^(\d{4})(0[1-9]|1[0-2])$/.exec(periodo);
  return m ? `${m[1]}-${m[2]}` : undefined;
}

/** Something that keeps the month's file from being filed as complete, and where to fix it. */
export interface MissingItem {
  code: string;
  message: string;
  /** The purchase id (606) or the e-NCF, the counterparty and the field concerned, when there is one. */
  id?: string;
  encf?: string;
  rnc?: string;
  field?: string;
  /** The request that fixes it, e.g. `PATCH /compras/{id}`. */
  fixWith?: string;
}

/** One record: the meaning of each field (DGII's column names) and the fields as written. */
export interface FormatLine<Column extends string> {
  fields: Record<Column, string>;
}

export interface MonthlyFormat<
  Column extends string,
  Line extends FormatLine<Column>,
  Format extends DgiiFormat = DgiiFormat,
> {
  format: Format;
  rnc: string;
  /** AAAAMM. */
  period: string;
  fileName: string;
  recordCount: number;
  /** True when nothing is missing: the TXT can be filed as it is. */
  complete: boolean;
  missing: MissingItem[];
  warnings: string[];
  lines: Line[];
}

/** The record's fields in the format's column order. */
export function fieldsOf<Column extends string>(columns: readonly Column[], line: FormatLine<Column>): string[] {
  return columns.map((c) => line.fields[c]);
}

export function recordLimitWarning(format: DgiiFormat, count: number): string[] {
  const limit = RECORD_LIMITS[format];
  return count > limit ? [`${count} records: DGII's tool takes at most ${limit} per ${format} file.`] : [];
}

/** Sums of amount columns over records seen one at a time, as DGII text (empty fields add nothing). */
export class ColumnTotals<Column extends string> {
  private readonly sums = new Map<Column, Decimal>();
  private readonly columns: readonly Column[];
  constructor(columns: readonly Column[]) {
    this.columns = columns;
    for (const c of columns) this.sums.set(c, ZERO);
  }
  add(fields: Readonly<Record<Column, string>>): void {
    for (const c of this.columns) if (fields[c]) this.sums.set(c, add(this.sums.get(c)!, dec(fields[c])));
  }
  result(): Record<Column, string> {
    return Object.fromEntries(this.columns.map((c) => [c, formatMoney(this.sums.get(c)!)])) as Record<Column, string>;
  }
}

/** What a month with documents still being read (recorded before 1.8.0) lacks before it can be filed. */
export function figuresPendingItem(count: number): MissingItem {
  return {
    code: "figures_pending",
    message: `${count} documents of the month recorded before 1.8.0 are still being read; ask again.`,
  };
}
