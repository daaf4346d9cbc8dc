// Types for qrcode's pure encoder (lib/core/qrcode.js): the package's main entry pulls in its PNG
// and file renderers (Node built-ins), which workerd does not have.
declare module "qrcode/lib/core/qrcode.js" {
  export interface QrModules {
    size: number;
    get(row: number, col: number): number | boolean;
  }
  export function create(
    text: string | { data: string; mode: "byte" | "alphanumeric" | "numeric" }[],
    options?: { errorCorrectionLevel?: "L" | "M" | "Q" | "H" },
  ): { modules: QrModules; version: number };
}
