// The catalogue as CSV (RFC 4180, UTF-8, a header row): read a whole file into products or into
// a list of every bad line, and write products back in the same columns, so export → import is the
// identity. Each line goes through the same schema as POST /products.
import { csvRow, looksLikeFormula } from "../reports/csv.ts";
import { lineProblem, type LineProblem } from "../ledger/issuer/line-problem.ts";
import type { ProductValues } from "../ledger/issuer/catalog-rows.ts";
import { ProductInput, productValues, type ProductView } from "./products.ts";

import { spanishColumn, spanishValue } from "./csv-spanish.ts";

export const PRODUCT_CSV_COLUMNS = [
  "code",
  "barcodes",
  "name",
  "price",
  "priceIncludesItbis",
  "itbisRate",
  "unit",
  "kind",
  "active",
] as const;
type Column = (typeof PRODUCT_CSV_COLUMNS)[number];

/** Problems listed in one answer; a file with more says how many there were. */
export const MAX_REPORTED_PROBLEMS = 1000;

export interface CsvRecord {
  /** The file line the record starts on (1 is the header). */
  line: number;
  fields: string[];
}

/**
 * Splits RFC 4180 text into records: quoted fields may hold commas, quotes ("") and line breaks;
 * CRLF or LF ends a record; empty lines are skipped. An unterminated quote is a problem of its line.
 */
export function parseCsv(text: string): { records: CsvRecord[]; problems: LineProblem[] } {
  const records: CsvRecord[] = [];
  const problems: LineProblem[] = [];
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let line = 1;
  let i = 0;
  const n = source.length;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let field = "";
    let quoted = false;
    let endOfRecord = false;
    while (i < n && !endOfRecord) {
      const ch = source[i]!;
      if (quoted) {
        if (ch === '"') {
          if (source[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            quoted = false;
            i++;
          }
        } else {
          if (ch === "\n") line++;
          field += ch;
          i++;
        }
      } else if (ch === '"' && field === "") {
        quoted = true;
        i++;
      } else if (ch === ",") {
        fields.push(field);
        field = "";
        i++;
      } else if (ch === "\r" && source[i + 1] === "\n") {
        i += 2;
        endOfRecord = true;
      } else if (ch === "\n") {
        i++;
        endOfRecord = true;
      } else {
        field += ch;
        i++;
      }
    }
    if (quoted)
      problems.push(
        lineProblem(start, null, "A quoted field is not closed before the end of the file.", "unterminated_quote"),
      );
    fields.push(field);
    if (endOfRecord) line++;
    if (fields.length === 1 && fields[0] === "") continue;
    records.push({ line: start, fields });
  }
  return { records, problems };
}

/** The export guards text a spreadsheet would run as a formula with an apostrophe; reading takes it off. */
const unguard = (cell: string) => (cell.startsWith("'") && looksLikeFormula(cell.slice(1)) ? cell.slice(1) : cell);

const BOOLEAN_COLUMNS = new Set<Column>(["priceIncludesItbis", "active"]);

/** A line's cells as the JSON POST /products takes (empty optional cells take the defaults). */
function lineObject(
  header: Column[],
  fields: string[],
  line: number,
  problems: LineProblem[],
): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  header.forEach((column, index) => {
    const cell = spanishValue(column, unguard(fields[index] ?? ""));
    if (column === "barcodes") object.barcodes = cell === "" ? [] : cell.split("|");
    else if (BOOLEAN_COLUMNS.has(column)) {
      if (cell === "") return;
      const lower = cell.toLowerCase();
      if (lower === "true" || lower === "false") object[column] = lower === "true";
      else problems.push(lineProblem(line, column, `${column} must be true or false, not "${cell}".`));
    } else if (cell !== "" || column === "code" || column === "name" || column === "price") object[column] = cell;
  });
  return object;
}

/**
 * Reads a whole products file: every product, or every problem (line and column) and no product.
 * Codes must be unique within the file (the import upserts by code), and barcodes among its active lines.
 */
export function readProductsCsv(text: string): {
  products: ProductValues[];
  lines: number[];
  problems: LineProblem[];
  problemCount: number;
} {
  const { records, problems } = parseCsv(text);
  const header = records.shift();
  if (!header)
    return {
      products: [],
      lines: [],
      problems: [
        lineProblem(
          1,
          null,
          `The file is empty; its first line must be the header ${PRODUCT_CSV_COLUMNS.join(",")}.`,
          "header",
        ),
      ],
      problemCount: 1,
    };
  const columns = header.fields.map((f) => spanishColumn(f.trim()));
  const wrongHeader = headerProblem(header.line, columns);
  if (wrongHeader) {
    problems.push(wrongHeader);
    return { products: [], lines: [], problems, problemCount: problems.length };
  }
  const products: ProductValues[] = [];
  const lines: number[] = [];
  const seen: SeenKeys = { lineOfCode: new Map(), lineOfBarcode: new Map() };
  for (const record of records) {
    const read = readProductLine(record, columns, seen);
    if ("problems" in read) problems.push(...read.problems);
    else {
      products.push(read.product);
      lines.push(record.line);
    }
  }
  problems.sort((a, b) => a.line - b.line);
  return { products, lines, problems: problems.slice(0, MAX_REPORTED_PROBLEMS), problemCount: problems.length };
}

/** The header's problem, if its columns are not exactly the import's (missing, unknown or repeated ones). */
function headerProblem(line: number, columns: string[]): LineProblem | null {
  const unknown = columns.filter((c) => !(PRODUCT_CSV_COLUMNS as readonly string[]).includes(c));
  const missing = PRODUCT_CSV_COLUMNS.filter((c) => !columns.includes(c));
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (!unknown.length && !missing.length && !repeated.length) return null;
  const said = [
    missing.length ? `missing ${missing.join(", ")}` : "",
    unknown.length ? `unknown ${unknown.join(", ")}` : "",
    repeated.length ? `repeated ${repeated.join(", ")}` : "",
  ].filter(Boolean);
  return lineProblem(
    line,
    null,
    `The header must name the columns ${PRODUCT_CSV_COLUMNS.join(",")} (${said.join("; ")}).`,
    "header",
  );
}

/** The file line each code, and each active line's barcode, was first seen on. */
interface SeenKeys {
  lineOfCode: Map<string, number>;
  // A scanner's barcode must name one product: unique among the active ones.
  lineOfBarcode: Map<string, number>;
}

/** One line as a product, or its problems; a line read as a product takes its code in `seen`. */
function readProductLine(
  record: CsvRecord,
  columns: string[],
  seen: SeenKeys,
): { product: ProductValues } | { problems: LineProblem[] } {
  if (record.fields.length !== columns.length) {
    const detail = `The line has ${record.fields.length} fields; the header has ${columns.length}.`;
    return { problems: [lineProblem(record.line, null, detail, "field_count")] };
  }
  const problems: LineProblem[] = [];
  const parsed = ProductInput.safeParse(lineObject(columns as Column[], record.fields, record.line, problems));
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(lineProblem(record.line, String(issue.path[0] ?? "") || null, issue.message, issue.code));
    return { problems };
  }
  if (problems.length) return { problems };
  const first = seen.lineOfCode.get(parsed.data.code);
  if (first !== undefined)
    problems.push(
      lineProblem(record.line, "code", `Code ${parsed.data.code} is already on line ${first}.`, "duplicate"),
    );
  for (const barcode of parsed.data.active ? parsed.data.barcodes : []) {
    const other = seen.lineOfBarcode.get(barcode);
    if (other !== undefined)
      problems.push(
        lineProblem(record.line, "barcodes", `Barcode ${barcode} is already on line ${other}.`, "duplicate"),
      );
    else seen.lineOfBarcode.set(barcode, record.line);
  }
  if (problems.length) return { problems };
  seen.lineOfCode.set(parsed.data.code, record.line);
  return { product: productValues(parsed.data) };
}

export const productsCsvHeader = () => csvRow(PRODUCT_CSV_COLUMNS);

/** One product as a CSV line (with its CRLF), in the import's columns. */
export function productCsvLine(product: ProductView): string {
  return csvRow(PRODUCT_CSV_COLUMNS, {
    ...product,
    barcodes: product.barcodes.join("|"),
    priceIncludesItbis: String(product.priceIncludesItbis),
    active: String(product.active),
  });
}
