/// <reference path="./qrcode-core.d.ts" />
// The timbre's QR code as a module matrix, drawn as vector squares in the PDF (crisp at any DPI).
//
// qrcode encodes; the mask is chosen here. ISO 18004 picks, of the 8 mask patterns, the one whose
// symbol scores the lowest penalty (N1 runs, N2 blocks, N3 finder-like patterns, N4 balance).
// qrcode computes those penalties through a getter per module, which was a fifth of a receipt's
// render; here they are the same rules, counted the same way, over a typed array. The symbol is
// encoded once with mask 0, unmasked, and each pattern tried by XOR with a precomputed mask.
import { M } from "qrcode/lib/core/error-correction-level.js";
import { getEncodedBits } from "qrcode/lib/core/format-info.js";
import { create } from "qrcode/lib/core/qrcode.js";

export interface QrMatrix {
  size: number;
  dark(row: number, col: number): boolean;
}

/** ISO 18004 §7.8.3 penalty weights (qrcode's PenaltyScores). */
const N1 = 3;
const N2 = 3;
const N3 = 40;
const N4 = 10;

/** What depends only on the symbol size (its version), built once per isolate per size. */
interface Layout {
  /** Per pattern, 1 where the pattern flips a module of the encoding region (reserved ones: 0). */
  masks: Uint8Array[];
  /** Where format bit i goes: two positions each (qrcode's setupFormatInfo). */
  formatAt: Int32Array;
}
const layouts = new Map<number, Layout>();

function maskAt(pattern: number, i: number, j: number): boolean {
  switch (pattern) {
    case 0:
      return (i + j) % 2 === 0;
    case 1:
      return i % 2 === 0;
    case 2:
      return j % 3 === 0;
    case 3:
      return (i + j) % 3 === 0;
    case 4:
      return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5:
      return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6:
      return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default:
      return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0;
  }
}

function layoutFor(size: number, reserved: Uint8Array): Layout {
  let layout = layouts.get(size);
  if (layout) return layout;
  const masks = Array.from({ length: 8 }, (_, pattern) => {
    const mask = new Uint8Array(size * size);
    for (let row = 0; row < size; row++)
      for (let col = 0; col < size; col++)
        if (!reserved[row * size + col] && maskAt(pattern, row, col)) mask[row * size + col] = 1;
    return mask;
  });
  const formatAt = new Int32Array(30);
  for (let i = 0; i < 15; i++) {
    const vertical = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    const horizontal = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    formatAt[2 * i] = vertical * size + 8;
    formatAt[2 * i + 1] = 8 * size + horizontal;
  }
  layout = { masks, formatAt };
  layouts.set(size, layout);
  return layout;
}

/** The symbol's penalty score, exactly as qrcode's getPenaltyN1..N4 count it. */
export function penalty(m: Uint8Array, size: number): number {
  let points = 0;
  for (let a = 0; a < size; a++) {
    // Along row a and down column a at once: runs of one colour (N1) and 1:1:3:1:1 patterns (N3).
    let runRow = 0;
    let runCol = 0;
    let lastRow = -1;
    let lastCol = -1;
    let bitsRow = 0;
    let bitsCol = 0;
    for (let b = 0; b < size; b++) {
      const inRow = m[a * size + b]!;
      if (inRow === lastRow) runRow++;
      else {
        if (runRow >= 5) points += N1 + runRow - 5;
        lastRow = inRow;
        runRow = 1;
      }
      const inCol = m[b * size + a]!;
      if (inCol === lastCol) runCol++;
      else {
        if (runCol >= 5) points += N1 + runCol - 5;
        lastCol = inCol;
        runCol = 1;
      }
      bitsRow = ((bitsRow << 1) & 0x7ff) | inRow;
      bitsCol = ((bitsCol << 1) & 0x7ff) | inCol;
      if (b >= 10) {
        if (bitsRow === 0x5d0 || bitsRow === 0x05d) points += N3;
        if (bitsCol === 0x5d0 || bitsCol === 0x05d) points += N3;
      }
    }
    if (runRow >= 5) points += N1 + runRow - 5;
    if (runCol >= 5) points += N1 + runCol - 5;
  }
  // N2: 2x2 blocks of one colour.
  for (let row = 0; row < size - 1; row++) {
    for (let col = 0; col < size - 1; col++) {
      const i = row * size + col;
      const sum = m[i]! + m[i + 1]! + m[i + size]! + m[i + size + 1]!;
      if (sum === 0 || sum === 4) points += N2;
    }
  }
  // N4: the share of dark modules, in steps of 5 % away from half.
  let dark = 0;
  for (let i = 0; i < m.length; i++) dark += m[i]!;
  return points + N4 * Math.abs(Math.ceil((dark * 100) / m.length / 5) - 10);
}

/**
 * Error correction M: the timbre URL (~250 characters) stays a small code, with room for wear.
 * One byte-mode segment: the URL's mixed case needs byte mode anyway, and the optimal-segment
 * search it replaces cost a fifth of a receipt's render.
 */
export function qrMatrix(text: string): QrMatrix {
  const { modules } = create([{ data: text, mode: "byte" }], { errorCorrectionLevel: "M", maskPattern: 0 });
  const size = modules.size;
  const { masks, formatAt } = layoutFor(size, modules.reservedBit);
  // The encoding region without its mask (mask 0 applied twice is no mask).
  const unmasked = modules.data.slice();
  const mask0 = masks[0]!;
  for (let i = 0; i < unmasked.length; i++) unmasked[i]! ^= mask0[i]!;

  const withMask = (pattern: number, out: Uint8Array): Uint8Array => {
    const mask = masks[pattern]!;
    for (let i = 0; i < out.length; i++) out[i] = unmasked[i]! ^ mask[i]!;
    const bits = getEncodedBits(M, pattern);
    for (let i = 0; i < 15; i++) {
      const bit = (bits >> i) & 1;
      out[formatAt[2 * i]!] = bit;
      out[formatAt[2 * i + 1]!] = bit;
    }
    return out;
  };
  // The first pattern with the lowest penalty, as qrcode's getBestMask chooses.
  const candidate = new Uint8Array(unmasked.length);
  let best = 0;
  let lowest = Number.POSITIVE_INFINITY;
  for (let pattern = 0; pattern < 8; pattern++) {
    const score = penalty(withMask(pattern, candidate), size);
    if (score < lowest) {
      lowest = score;
      best = pattern;
    }
  }
  const symbol = withMask(best, candidate);
  return { size, dark: (row, col) => symbol[row * size + col] === 1 };
}
