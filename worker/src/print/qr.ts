/// <reference path="./qrcode-core.d.ts" />
// The timbre's QR code as a module matrix, drawn as vector squares in the PDF (crisp at any DPI).
import { create } from "qrcode/lib/core/qrcode.js";

export interface QrMatrix {
  size: number;
  dark(row: number, col: number): boolean;
}

/**
 * Error correction M: the timbre URL (~250 characters) stays a small code, with room for wear.
 * One byte-mode segment: the URL's mixed case needs byte mode anyway, and the optimal-segment
 * search it replaces cost a fifth of a receipt's render.
 */
export function qrMatrix(text: string): QrMatrix {
  const { modules } = create([{ data: text, mode: "byte" }], { errorCorrectionLevel: "M" });
  return { size: modules.size, dark: (row, col) => Boolean(modules.get(row, col)) };
}
