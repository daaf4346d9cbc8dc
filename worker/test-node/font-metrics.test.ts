// The generated standard-font metrics measure text exactly as pdf-lib's StandardFontEmbedder
// (the AFM data they were generated from): same floats, so the RI's layout does not move by a bit.
import { StandardFontEmbedder } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { METRIC_CHARS } from "../src/generated/font-metrics.ts";
import { fontMetrics, type StandardFontName } from "../src/print/font-metrics.ts";
import { formatAmount, printable } from "../src/print/pdf-text.ts";

const FONTS: StandardFontName[] = ["Helvetica", "Helvetica-Bold"];
const SIZES = [1, 7, 7.5, 8, 9, 10, 11, 12, 13.37];
const reference = (font: StandardFontName) =>
  StandardFontEmbedder.for(font as Parameters<typeof StandardFontEmbedder.for>[0]);

/** Every UTF-16 code unit printable() keeps as itself. */
const PRINTABLE = (() => {
  const chars: string[] = [];
  for (let code = 0; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const ch = String.fromCharCode(code);
    if (printable(ch) === ch) chars.push(ch);
  }
  return chars;
})();

/** A small seeded generator: the same "random" strings on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

const NAMES = [
  "Comercial Peña & Asociados, S.R.L.",
  "José Ramón Núñez Díaz",
  "Inversiones Ñandú del Caribe",
  "Factura de Crédito Fiscal Electrónica",
  "Regímenes Especiales Electrónico",
  "Código de Seguridad: Ab3+x/",
  "Fecha de Firma Digital: 01-04-2025 10:15:00",
  "Razón Social Cliente: DIRECCION GENERAL DE IMPUESTOS INTERNOS",
  "Página No. 2 de 3",
  "Subtotal Gravado Página",
  "AVAWAY LTA To Yo Wa Ve «Año» ¿Qué? ¡Sí! “x” ‘y’ – — … • ™ € Š Œ ž Ÿ",
  "E310000000001",
  "RNC: 131880681",
  "0123456789",
  "",
  " ",
];
const AMOUNTS = ["0", "1.5", "18", "1234567.5", "9999999999.99", "-250.10", "11800.00", "0.01"].map(formatAmount);

describe("standard font metrics", () => {
  it("cover exactly the characters printable() lets through", () => {
    expect([...METRIC_CHARS]).toEqual(PRINTABLE);
  });

  it.each(FONTS)("%s: every printable character is as wide as pdf-lib says, at every size", (font) => {
    const ours = fontMetrics(font);
    const theirs = reference(font);
    for (const ch of PRINTABLE)
      for (const size of SIZES)
        expect([ch, size, ours.widthOfTextAtSize(ch, size)]).toEqual([ch, size, theirs.widthOfTextAtSize(ch, size)]);
  });

  it.each(FONTS)("%s: every pair of printable characters (kerning) measures as in pdf-lib", (font) => {
    const ours = fontMetrics(font);
    const theirs = reference(font);
    const wrong: string[] = [];
    let kerned = 0;
    for (const left of PRINTABLE) {
      for (const right of PRINTABLE) {
        const pair = left + right;
        const expected = theirs.widthOfTextAtSize(pair, 9);
        if (ours.widthOfTextAtSize(pair, 9) !== expected) wrong.push(pair);
        if (expected !== theirs.widthOfTextAtSize(left, 9) + theirs.widthOfTextAtSize(right, 9)) kerned++;
      }
    }
    expect(wrong).toEqual([]);
    // The tables do kern (Helvetica has over a thousand such pairs among these characters).
    expect(kerned).toBeGreaterThan(1000);
  });

  it.each(FONTS)("%s: names, labels, digits, amounts and random strings measure as in pdf-lib", (font) => {
    const ours = fontMetrics(font);
    const theirs = reference(font);
    const random = seeded(16);
    const strings = [
      ...NAMES,
      ...AMOUNTS,
      ...NAMES.map((n) => n.toUpperCase()),
      ...NAMES.map((n, i) => `${n} ${AMOUNTS[i % AMOUNTS.length]}`),
    ];
    for (let i = 0; i < 2000; i++)
      strings.push(
        Array.from(
          { length: 1 + Math.floor(random() * 120) },
          () => PRINTABLE[Math.floor(random() * PRINTABLE.length)],
        ).join(""),
      );
    for (const text of strings)
      for (const size of SIZES)
        expect([text, size, ours.widthOfTextAtSize(text, size)]).toEqual([
          text,
          size,
          theirs.widthOfTextAtSize(text, size),
        ]);
  });

  it("measures a character the fonts cannot print as the ? the page shows instead", () => {
    const metrics = fontMetrics("Helvetica");
    expect(metrics.widthOfTextAtSize("A漢B", 10)).toBe(metrics.widthOfTextAtSize("A?B", 10));
    expect(metrics.widthOfTextAtSize("漢", 10)).toBeGreaterThan(0);
  });
});
