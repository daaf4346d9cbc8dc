// The UTF-8 bytes of a document in a buffer reused from one signature to the next. Encoding a
// 100 KB e-CF into a fresh ArrayBuffer costs several times the encoding itself (allocating,
// zeroing, and the garbage collections that external memory brings on), as much as the SHA-256
// of it. One spare buffer is kept; a caller that finds it lent out (another signature awaiting
// its digest) gets a fresh one, so no two callers ever share bytes.
const encoder = new TextEncoder();

// The spare is not kept beyond this size: an isolate should not hold on to one rare huge document.
const KEPT_BYTES = 4 * 1024 * 1024;
let spare: Uint8Array<ArrayBuffer> | undefined;

/**
 * Runs `use` with the UTF-8 encoding of `text` in a scratch buffer, which is reused once the
 * promise `use` returns has settled: `use` must not keep the bytes (or a view of them) beyond it.
 */
export async function withUtf8<T>(text: string, use: (bytes: Uint8Array<ArrayBuffer>) => Promise<T>): Promise<T> {
  // Every UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, 2 units, takes 4).
  const needed = text.length * 3;
  const buffer = spare !== undefined && spare.length >= needed ? spare : new Uint8Array(needed);
  if (buffer === spare) spare = undefined;
  const { written } = encoder.encodeInto(text, buffer);
  try {
    return await use(buffer.subarray(0, written));
  } finally {
    if (buffer.length <= KEPT_BYTES && (spare === undefined || spare.length < buffer.length)) spare = buffer;
  }
}
