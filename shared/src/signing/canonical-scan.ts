// The quick pass of checkCanonical: the same rules, decided in one tight loop over the bytes
// that only answers "canonical, here is the root" or "not sure". A document our serializer wrote
// passes here; anything else (every refusal, and shapes this pass does not bother with, such as
// nesting deeper than DEPTH) returns null and the full check decides and names the reason.
// Never more lenient than the full check: each acceptance below is one the full check makes too.
import type { RootSpan } from "./canonical-check.ts";

const LT = 0x3c,
  GT = 0x3e,
  SLASH = 0x2f,
  AMP = 0x26,
  SP = 0x20,
  TAB = 0x09,
  LF = 0x0a,
  CR = 0x0d;

// Byte classes, one table lookup per byte in the hot loops.
const NAME_START = new Uint8Array(256);
const NAME_CHAR = new Uint8Array(256);
// Text bytes needing no further look: not markup, not whitespace, not a control, not 0xEF.
const PLAIN_TEXT = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  NAME_START[b] = (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f ? 1 : 0;
  NAME_CHAR[b] = NAME_START[b] || (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2e ? 1 : 0;
  PLAIN_TEXT[b] = b > 0x20 && b !== LT && b !== GT && b !== AMP && b !== 0xef ? 1 : 0;
}

// Open elements deeper than this go to the full check (e-CF nests about six deep).
const DEPTH = 64;
const openName = new Int32Array(DEPTH);
const openLength = new Int32Array(DEPTH);

/**
 * The root element's span when `bytes` from `start` (a '<') is one canonical root element
 * followed by nothing but whitespace; null when the full check must decide.
 */
export function scanCanonicalRoot(bytes: Uint8Array, start: number): RootSpan | null {
  const n = bytes.length;
  let i = start;
  let depth = 0;
  // Invariant at the top of the loop: bytes[i] is '<' (text is consumed with its element).
  while (i < n && bytes[i] === LT) {
    if (bytes[i + 1] === SLASH) {
      // The end tag of an element with child elements (one with text closed in its start tag's turn).
      if (depth === 0) return null;
      depth--;
      const after = endTagEnd(bytes, i, openName[depth]!, openLength[depth]!);
      if (after < 0) return null;
      if (depth === 0) return rootSpan(bytes, start, i, after);
      i = after;
      continue;
    }
    const ns = i + 1;
    if (NAME_START[bytes[ns]!] !== 1) return null;
    let j = ns + 1;
    while (NAME_CHAR[bytes[j]!] === 1) j++;
    if (bytes[j] !== GT || isSignature(bytes, ns, j)) return null;
    i = j + 1;
    if (bytes[i] === LT) {
      // Child elements follow (an immediate end tag would be an empty element: refused there).
      if (bytes[i + 1] === SLASH || depth === DEPTH) return null;
      openName[depth] = ns;
      openLength[depth] = j - ns;
      depth++;
      continue;
    }
    // Text, then this element's own end tag: mixed content and whitespace-only text are refused.
    const textEnd = scanText(bytes, i);
    if (textEnd < 0 || bytes[textEnd + 1] !== SLASH) return null;
    const after = endTagEnd(bytes, textEnd, ns, j - ns);
    if (after < 0) return null;
    if (depth === 0) return rootSpan(bytes, start, textEnd, after);
    i = after;
  }
  return null;
}

/** One past the '>' of the end tag at `at` when it closes the name at `name`; -1 otherwise. */
function endTagEnd(bytes: Uint8Array, at: number, name: number, length: number): number {
  const from = at + 2;
  for (let k = 0; k < length; k++) if (bytes[from + k] !== bytes[name + k]) return -1;
  return bytes[from + length] === GT ? from + length + 1 : -1;
}

/**
 * The '<' ending the text that starts at `i`, when the text is canonical and not only
 * whitespace; -1 otherwise (or when the document ends first).
 */
function scanText(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  let content = false;
  while (i < n) {
    if (PLAIN_TEXT[bytes[i]!] === 1) {
      content = true;
      i++;
      continue;
    }
    const b = bytes[i]!;
    if (b === LT) return content ? i : -1;
    if (b === AMP) {
      const length = entityLength(bytes, i + 1);
      if (length === 0) return -1;
      content = true;
      i += length + 1;
    } else if (b === 0xef) {
      // U+FFFE and U+FFFF are not XML characters; the rest of U+F000..U+FFFF is plain text.
      if (bytes[i + 1] === 0xbf && (bytes[i + 2] === 0xbe || bytes[i + 2] === 0xbf)) return -1;
      content = true;
      i++;
    } else if (b === SP || b === TAB || b === LF) {
      i++;
    } else {
      // '>', a carriage return or another control character: the full check names it.
      return -1;
    }
  }
  return -1;
}

/** Length of `amp;`, `lt;`, `gt;` or `#xD;` at `at` (the only references C14N 1.0 writes in text), or 0. */
function entityLength(bytes: Uint8Array, at: number): number {
  const a = bytes[at];
  if (a === 0x61) return bytes[at + 1] === 0x6d && bytes[at + 2] === 0x70 && bytes[at + 3] === 0x3b ? 4 : 0;
  if (a === 0x6c || a === 0x67) return bytes[at + 1] === 0x74 && bytes[at + 2] === 0x3b ? 3 : 0;
  if (a === 0x23) return bytes[at + 1] === 0x78 && bytes[at + 2] === 0x44 && bytes[at + 3] === 0x3b ? 4 : 0;
  return 0;
}

// "Signature" in ASCII: an element with that name means the document is already signed.
const SIGNATURE = [0x53, 0x69, 0x67, 0x6e, 0x61, 0x74, 0x75, 0x72, 0x65];

function isSignature(bytes: Uint8Array, from: number, to: number): boolean {
  if (to - from !== SIGNATURE.length) return false;
  for (let k = 0; k < SIGNATURE.length; k++) if (bytes[from + k] !== SIGNATURE[k]) return false;
  return true;
}

/** The root's span once its end tag (at `closeTag`, ending before `after`) is found: only whitespace may follow. */
function rootSpan(bytes: Uint8Array, start: number, closeTag: number, after: number): RootSpan | null {
  for (let k = after; k < bytes.length; k++) {
    const b = bytes[k];
    if (b !== SP && b !== TAB && b !== LF && b !== CR) return null;
  }
  return { start, closeTag, end: after };
}
