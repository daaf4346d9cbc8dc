// Types for the one pako function the PDF uses (pako 1.x ships none). Its deflate module alone:
// the package's index would bundle the inflater too, which the worker never runs.
declare module "pako/lib/deflate.js" {
  // CommonJS: one object, imported as the default export.
  const deflater: {
    /** zlib-wrapped deflate (what a PDF's FlateDecode reads). */
    deflate(data: Uint8Array, options?: { level?: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 }): Uint8Array;
  };
  export default deflater;
}
