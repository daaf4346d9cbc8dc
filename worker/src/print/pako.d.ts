// Types for the one pako function the PDF uses (pako 1.x ships none).
declare module "pako" {
  // CommonJS: one object, imported as the default export.
  const pako: {
    /** zlib-wrapped deflate (what a PDF's FlateDecode reads). */
    deflate(data: Uint8Array, options?: { level?: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 }): Uint8Array;
  };
  export default pako;
}
