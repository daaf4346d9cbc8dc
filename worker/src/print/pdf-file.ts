// A PDF file written object by object (ISO 32000-1 §7.5): header, indirect objects, one
// cross-reference section with every object's byte offset, trailer. It writes what the RI needs
// (dictionaries, arrays, numbers, names, strings, references, streams whose bytes the caller
// has already encoded) and nothing it does not: no parsing, no object streams, no encryption.
// The layout of the bytes is pdf-lib's (PDFWriter with useObjectStreams false), so the RI renders
// to the same bytes as when pdf-lib wrote it, and the same input always gives the same bytes.

/** A reference to an indirect object (generation 0: a new file has no other). */
export class PdfRef {
  constructor(readonly objectNumber: number) {}
  toString(): string {
    return `${this.objectNumber} 0 R`;
  }
}

/** A name object: `/Type`. */
export class PdfName {
  constructor(readonly name: string) {}
  toString(): string {
    return `/${escapeName(this.name)}`;
  }
}

/** A string already written in PDF syntax (a literal `(...)` or hex `<...>` string). */
export class PdfString {
  private constructor(private readonly written: string) {}

  /**
   * A text string (§7.9.2.2) as UTF-16BE with its byte-order mark, in hex: any text, written in
   * ASCII. pdf-lib writes the document information this way, ASCII included.
   */
  static text(value: string): PdfString {
    let hex = "<FEFF";
    for (let i = 0; i < value.length; i++) hex += value.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0");
    return new PdfString(`${hex}>`);
  }

  /** A literal string of bytes 0-255 (one per character), escaped (§7.3.4.2). */
  static literal(value: string): PdfString {
    let out = "(";
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code > 0xff)
        throw new RangeError(`PdfString.literal: ${JSON.stringify(value[i])} is not a byte; use PdfString.text`);
      const ch = value[i]!;
      // Balanced or not, escaped parentheses are always right; octal keeps the file ASCII.
      if (ch === "(" || ch === ")" || ch === "\\") out += `\\${ch}`;
      else if (code < 0x20 || code > 0x7e) out += `\\${code.toString(8).padStart(3, "0")}`;
      else out += ch;
    }
    return new PdfString(`${out})`);
  }

  /** A date (§7.9.4) in UTC, to the second: `(D:YYYYMMDDHHmmSSZ)`. */
  static date(when: Date): PdfString {
    const two = (n: number) => String(n).padStart(2, "0");
    const stamp = `${String(when.getUTCFullYear()).padStart(4, "0")}${two(when.getUTCMonth() + 1)}${two(when.getUTCDate())}${two(when.getUTCHours())}${two(when.getUTCMinutes())}${two(when.getUTCSeconds())}`;
    return PdfString.literal(`D:${stamp}Z`);
  }

  toString(): string {
    return this.written;
  }
}

export type PdfValue = number | boolean | PdfName | PdfString | PdfRef | readonly PdfValue[] | PdfDict;
/** A dictionary, written in its keys' insertion order (so no integer-like keys such as "1"). */
export interface PdfDict {
  readonly [key: string]: PdfValue | undefined;
}

export const name = (value: string): PdfName => new PdfName(value);

/** Characters a name writes as #xx (§7.3.5): delimiters, whitespace, '#', anything outside '!'-'~'. */
function escapeName(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0xff) throw new RangeError(`PdfName: ${JSON.stringify(value[i])} is not a byte`);
    out +=
      code < 0x21 || code > 0x7e || "#()<>[]{}/%".includes(value[i]!)
        ? `#${code.toString(16).toUpperCase().padStart(2, "0")}`
        : value[i];
  }
  return out;
}

/** A number without exponent, all its digits (as pdf-lib writes it: a page size is exact). */
function writeNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`PDF numbers are finite: ${value}`);
  const text = String(value);
  if (!text.includes("e")) return text;
  // Below 1e-6 or above 1e21: nothing a page holds, but still a valid PDF number.
  return Math.abs(value) < 1 ? value.toFixed(20).replace(/\.?0+$/, "") : BigInt(Math.round(value)).toString();
}

/** One value in PDF syntax; dictionaries and arrays as pdf-lib lays them out. */
export function writeValue(value: PdfValue): string {
  if (typeof value === "number") return writeNumber(value);
  if (typeof value === "boolean") return String(value);
  if (value instanceof PdfName || value instanceof PdfString || value instanceof PdfRef) return value.toString();
  if (Array.isArray(value)) {
    let out = "[ ";
    for (const item of value as readonly PdfValue[]) out += `${writeValue(item)} `;
    return `${out}]`;
  }
  let out = "<<\n";
  for (const [key, item] of Object.entries(value as PdfDict)) {
    if (item !== undefined) out += `/${escapeName(key)} ${writeValue(item)}\n`;
  }
  return `${out}>>`;
}

/** "%PDF-1.7" and a comment of bytes above 127, which tells file transfers the file is binary. */
const HEADER = "%PDF-1.7\n%\x81\x81\x81\x81\n\n";

/** A PDF file being assembled: objects are numbered from 1 in the order they are reserved. */
export class PdfFile {
  /** Each object's serialized pieces (strings are byte strings, one byte per character). */
  private readonly objects: ((string | Uint8Array)[] | undefined)[] = [];

  /** A number for an object written later (with `set`): a page tree needs its pages' numbers and they its. */
  reserve(): PdfRef {
    this.objects.push(undefined);
    return new PdfRef(this.objects.length);
  }

  set(ref: PdfRef, value: PdfValue): void {
    this.objects[ref.objectNumber - 1] = [writeValue(value)];
  }

  add(value: PdfValue): PdfRef {
    const ref = this.reserve();
    this.set(ref, value);
    return ref;
  }

  /** A stream of already encoded `data` (e.g. deflated, with /Filter in `dict`); /Length is added. */
  addStream(dict: PdfDict, data: Uint8Array): PdfRef {
    const ref = this.reserve();
    this.objects[ref.objectNumber - 1] = [
      `${writeValue({ ...dict, Length: data.length })}\nstream\n`,
      data,
      "\nendstream",
    ];
    return ref;
  }

  /** The file's bytes: every object, the cross-reference table and the trailer naming `root` and `info`. */
  bytes(trailer: { root: PdfRef; info?: PdfRef }): Uint8Array {
    const pieces: (string | Uint8Array)[] = [HEADER];
    const offsets: number[] = [];
    let size = HEADER.length;
    const push = (piece: string | Uint8Array) => {
      pieces.push(piece);
      size += piece.length;
    };
    this.objects.forEach((object, i) => {
      if (!object) throw new Error(`PdfFile: object ${i + 1} was reserved but never set`);
      offsets.push(size);
      push(`${i + 1} 0 obj\n`);
      for (const piece of object) push(piece);
      push("\nendobj\n\n");
    });
    const xrefOffset = size;
    let xref = `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`;
    for (const offset of offsets) xref += `${String(offset).padStart(10, "0")} 00000 n \n`;
    push(xref);
    push(
      `\ntrailer\n${writeValue({ Size: offsets.length + 1, Root: trailer.root, Info: trailer.info })}\n\nstartxref\n${xrefOffset}\n%%EOF`,
    );

    const out = new Uint8Array(size);
    let at = 0;
    for (const piece of pieces) {
      if (typeof piece === "string") {
        for (let i = 0; i < piece.length; i++) out[at + i] = piece.charCodeAt(i);
      } else out.set(piece, at);
      at += piece.length;
    }
    return out;
  }
}
