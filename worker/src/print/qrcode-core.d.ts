// Types for qrcode's pure encoder (lib/core/*.js): the package's main entry pulls in its PNG
// and file renderers (Node built-ins), which workerd does not have.
declare module "qrcode/lib/core/qrcode.js" {
  export interface QrModules {
    size: number;
    /** One byte per module, row by row: 1 dark, 0 light. */
    data: Uint8Array;
    /** One byte per module: non-zero where a function pattern or format/version info sits (never masked). */
    reservedBit: Uint8Array;
    get(row: number, col: number): number | boolean;
  }
  export function create(
    text: string | { data: string; mode: "byte" | "alphanumeric" | "numeric" }[],
    options?: { errorCorrectionLevel?: "L" | "M" | "Q" | "H"; maskPattern?: number },
  ): { modules: QrModules; version: number; maskPattern: number };
}

declare module "qrcode/lib/core/format-info.js" {
  /** The 15 format bits (BCH-coded, masked) for an error correction level and a mask pattern. */
  export function getEncodedBits(errorCorrectionLevel: { bit: number }, mask: number): number;
}

declare module "qrcode/lib/core/error-correction-level.js" {
  export const M: { bit: number };
}
