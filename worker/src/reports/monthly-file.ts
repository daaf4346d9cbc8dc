// A monthly format (606, 607, 608) as a response body written while its records are read, so a
// month of 300,000 records never sits in the Worker's memory: what comes before the records (the
// header, what is missing) and after them (totals) is known first, from a pass that keeps no
// record; the records are then read again a page at a time, in the file's order. The JSON is
// the text JSON.stringify gives for the whole object (same keys, same order); the TXT is DGII's.
import { chunksToStream } from "../archive/zip-stream.ts";
import { fieldsOf, txtHeader, txtRecord, type DgiiFormat, type FormatLine, type MissingItem } from "./dgii-txt.ts";

/** What a format says before its records (MonthlyFormat without `lines`, in that key order). */
export interface MonthlyHead {
  format: DgiiFormat;
  rnc: string;
  period: string;
  fileName: string;
  recordCount: number;
  complete: boolean;
  missing: MissingItem[];
  warnings: string[];
}

export interface MonthlyFile<Line extends FormatLine<string>> {
  head: MonthlyHead;
  /** The records in the file's order, read when iterated (each call reads them again). */
  lines: () => AsyncIterable<Line>;
  /** What the JSON says after `lines` (totals, the E32 summary, the purchases left out). */
  tail: Record<string, unknown>;
}

/** A format built whole (the 608: bounded by MAX_VOIDED_NUMBERS) as a file, its keys split around `lines`. */
export function fileOfReport<Line extends FormatLine<string>>(
  report: MonthlyHead & { lines: Line[] },
): MonthlyFile<Line> {
  const entries = Object.entries(report);
  const at = entries.findIndex(([k]) => k === "lines");
  const lines = report.lines;
  return {
    head: Object.fromEntries(entries.slice(0, at)) as unknown as MonthlyHead,
    lines: async function* () {
      yield* lines;
    },
    tail: Object.fromEntries(entries.slice(at + 1)),
  };
}

const encoder = new TextEncoder();
/** Characters gathered before a chunk is sent: big enough to amortize a chunk, far under the heap. */
const CHUNK_CHARS = 64 * 1024;

/** Strings joined into chunks of about CHUNK_CHARS, as bytes. */
async function* chunked(parts: AsyncIterable<string>): AsyncGenerator<Uint8Array> {
  let pending: string[] = [];
  let size = 0;
  for await (const part of parts) {
    pending.push(part);
    size += part.length;
    if (size >= CHUNK_CHARS) {
      yield encoder.encode(pending.join(""));
      pending = [];
      size = 0;
    }
  }
  if (pending.length) yield encoder.encode(pending.join(""));
}

async function* jsonParts(file: MonthlyFile<FormatLine<string>>): AsyncGenerator<string> {
  yield `${JSON.stringify(file.head).slice(0, -1)},"lines":[`;
  let first = true;
  for await (const line of file.lines()) {
    yield first ? JSON.stringify(line) : `,${JSON.stringify(line)}`;
    first = false;
  }
  const tail = JSON.stringify(file.tail);
  yield tail === "{}" ? "]}" : `],${tail.slice(1)}`;
}

async function* txtParts(file: MonthlyFile<FormatLine<string>>, columns: readonly string[]): AsyncGenerator<string> {
  const { format, rnc, period, recordCount } = file.head;
  yield txtHeader(format, rnc, period, recordCount);
  let written = 0;
  for await (const line of file.lines()) {
    yield txtRecord(fieldsOf(columns, line));
    written++;
  }
  // The header promised a count; a month that changed between the passes must not pass as filed.
  if (written !== recordCount) throw new Error(`${format} changed while written: ${written} of ${recordCount}`);
}

/** The format's JSON, a chunk at a time. */
export function monthlyJson(file: MonthlyFile<FormatLine<string>>): ReadableStream<Uint8Array> {
  return chunksToStream(chunked(jsonParts(file)));
}

/** The format's TXT (ASCII, CRLF), a chunk at a time. */
export function monthlyTxt(
  file: MonthlyFile<FormatLine<string>>,
  columns: readonly string[],
): ReadableStream<Uint8Array> {
  return chunksToStream(chunked(txtParts(file, columns)));
}
