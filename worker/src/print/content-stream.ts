// A page's content stream written directly as PDF operators in a string. pdf-lib's drawing API
// builds an object per operator and per number and formats every number at full precision: on
// a receipt that was most of the render's time and garbage. Here a page is one string, numbers
// are written with at most three decimals (1/1000 pt, far below what any device shows), and the
// standard fonts' text is written as WinAnsi hex strings, as pdf-lib writes it.

/** The resource names the page's fonts are registered under (see render.ts). */
export type FontKey = "F1" | "F2";

/** WinAnsi codes 0x80-0x9F for the characters `printable` lets through besides Latin-1. */
const WIN_ANSI_HIGH: Record<string, number> = {
  "€": 0x80,
  "‚": 0x82,
  ƒ: 0x83,
  "„": 0x84,
  "…": 0x85,
  "†": 0x86,
  "‡": 0x87,
  ˆ: 0x88,
  "‰": 0x89,
  Š: 0x8a,
  "‹": 0x8b,
  Œ: 0x8c,
  Ž: 0x8e,
  "‘": 0x91,
  "’": 0x92,
  "“": 0x93,
  "”": 0x94,
  "•": 0x95,
  "–": 0x96,
  "—": 0x97,
  "˜": 0x98,
  "™": 0x99,
  š: 0x9a,
  "›": 0x9b,
  œ: 0x9c,
  ž: 0x9e,
  Ÿ: 0x9f,
};

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, "0"));

/** `text` (already `printable`: WinAnsi only) as a PDF hex string; anything else becomes "?". */
export function winAnsiHex(text: string): string {
  let out = "<";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out += HEX[code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : (WIN_ANSI_HIGH[text[i]!] ?? 0x3f)];
  }
  return `${out}>`;
}

/** A number as PDF writes it: at most `decimals` decimals (3: 1/1000 pt), no "-0". Page coordinates only: no exponent below 1e21. */
export function pdfNumber(value: number, decimals = 3): string {
  if (Number.isInteger(value)) return String(value);
  const scale = 10 ** decimals;
  const rounded = Math.round(value * scale) / scale;
  return rounded === 0 ? "0" : String(rounded);
}

/** Operators appended to one string; a page is drawn through one of these. */
export class ContentStream {
  private ops = "";
  private inText = false;
  private font: FontKey | undefined;
  private size = 0;

  /** One line of text with its baseline starting at (x, y), in the current fill colour (black). */
  text(hex: string, x: number, y: number, font: FontKey, size: number): void {
    // Consecutive texts share one BT ... ET; the font is set only when it changes.
    if (!this.inText) {
      this.ops += "BT\n";
      this.inText = true;
      this.font = undefined;
    }
    if (font !== this.font || size !== this.size) {
      this.ops += `/${font} ${pdfNumber(size)} Tf\n`;
      this.font = font;
      this.size = size;
    }
    this.ops += `1 0 0 1 ${pdfNumber(x)} ${pdfNumber(y)} Tm ${hex} Tj\n`;
  }

  /** A stroked line in an RGB grey, optionally dashed. */
  line(
    x1: number,
    y1: number,
    x2: number,
    y2: number,
    thickness: number,
    grey: number,
    dash?: readonly number[],
  ): void {
    this.endText();
    const g = pdfNumber(grey);
    const pattern = dash ? `[${dash.map((d) => pdfNumber(d)).join(" ")}] 0 d ` : "";
    this.ops += `q ${g} ${g} ${g} RG ${pdfNumber(thickness)} w ${pattern}${pdfNumber(x1)} ${pdfNumber(y1)} m ${pdfNumber(x2)} ${pdfNumber(y2)} l S Q\n`;
  }

  /** Raw operators (already formatted), outside any text object. */
  raw(operators: string): void {
    this.endText();
    this.ops += operators;
  }

  /** The finished stream's bytes (ASCII: every text is hex). */
  bytes(): Uint8Array {
    this.endText();
    return new TextEncoder().encode(this.ops);
  }

  private endText(): void {
    if (!this.inText) return;
    this.ops += "ET\n";
    this.inText = false;
  }
}
