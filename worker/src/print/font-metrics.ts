// Text widths in the two standard fonts the RI uses, from the generated tables (scripts/
// generate-font-metrics.ts): the same numbers pdf-lib's StandardFontEmbedder gives, kerning
// included, without pdf-lib and the AFM data of all 14 standard fonts in the bundle.
import { type FontMetricsData, HELVETICA, HELVETICA_BOLD, METRIC_CHARS } from "../generated/font-metrics.ts";

export type StandardFontName = "Helvetica" | "Helvetica-Bold";

export interface FontMetrics {
  /** Width in points of `text` (`printable` output) at `size`, kerning included. */
  widthOfTextAtSize(text: string, size: number): number;
}

const DATA: Record<StandardFontName, FontMetricsData> = { Helvetica: HELVETICA, "Helvetica-Bold": HELVETICA_BOLD };
const COUNT = METRIC_CHARS.length;

/** UTF-16 code unit → index in METRIC_CHARS, -1 for a character the fonts cannot print. */
const INDEX = (() => {
  let top = 0;
  for (let i = 0; i < COUNT; i++) top = Math.max(top, METRIC_CHARS.charCodeAt(i));
  const index = new Int16Array(top + 1).fill(-1);
  for (let i = 0; i < COUNT; i++) index[METRIC_CHARS.charCodeAt(i)] = i;
  return index;
})();
/** What the content stream draws for anything else (winAnsiHex): "?". */
const FALLBACK = INDEX["?".charCodeAt(0)]!;

class TableMetrics implements FontMetrics {
  private readonly widths: Int16Array;
  /** kerning[left * COUNT + right], in 1/1000 of the size: a flat table, one read per pair. */
  private readonly kerning: Int16Array;

  constructor(data: FontMetricsData) {
    this.widths = Int16Array.from(data.widths);
    this.kerning = new Int16Array(COUNT * COUNT);
    for (const [lefts, amount, rights] of data.kerning) {
      for (const left of lefts)
        for (const right of rights) this.kerning[indexOf(left) * COUNT + indexOf(right)] = amount;
    }
  }

  widthOfTextAtSize(text: string, size: number): number {
    // Integers summed (exact), then scaled as pdf-lib scales them: the same float, to the last bit.
    let total = 0;
    let previous = -1;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const found = code < INDEX.length ? INDEX[code]! : -1;
      const glyph = found < 0 ? FALLBACK : found;
      total += this.widths[glyph]!;
      if (previous >= 0) total += this.kerning[previous * COUNT + glyph]!;
      previous = glyph;
    }
    return total * (size / 1000);
  }
}

function indexOf(ch: string): number {
  const index = INDEX[ch.charCodeAt(0)];
  if (index === undefined || index < 0) throw new Error(`font metrics: ${JSON.stringify(ch)} is not in METRIC_CHARS`);
  return index;
}

const loaded = new Map<StandardFontName, FontMetrics>();

/** A font's metrics, built once per isolate from its tables. */
export function fontMetrics(name: StandardFontName): FontMetrics {
  let metrics = loaded.get(name);
  if (!metrics) loaded.set(name, (metrics = new TableMetrics(DATA[name])));
  return metrics;
}
