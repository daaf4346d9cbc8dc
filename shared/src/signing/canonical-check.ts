// A linear check that a document is already in the C14N 1.0 form the fast signer relies on:
// one root element, no attributes or namespaces, no comments / PIs / CDATA / DOCTYPE, no
// whitespace between elements, no empty elements, text escaped exactly as C14N escapes it. Under
// those rules the canonical form of the document *is* the root element's bytes, so the digest can
// be taken over them. It runs on the UTF-8 bytes: every markup character is ASCII and every byte
// of a multi-byte character is >= 0x80, so no decoding is needed.

import { scanCanonicalRoot } from "./canonical-scan.ts";

declare global {
  // ES2024; present in Node 20, workerd and Chromium. Declared here because the base lib is ES2023.
  interface String {
    isWellFormed(): boolean;
  }
}

/** Why a document is not canonical in the sense the fast signer relies on. */
export type NotCanonicalCode =
  | "byte_order_mark"
  | "xml_declaration"
  | "doctype"
  | "comment"
  | "processing_instruction"
  | "cdata"
  | "attribute"
  | "namespace_prefix"
  | "invalid_name"
  | "self_closing_element"
  | "empty_element"
  | "whitespace_between_elements"
  | "whitespace_only_text"
  | "text_escaping"
  | "invalid_character"
  | "mismatched_tag"
  | "unterminated"
  | "content_outside_root"
  | "already_signed";

export class NotCanonicalError extends Error {
  override readonly name = "NotCanonicalError";
  constructor(
    readonly code: NotCanonicalCode,
    /** Byte offset in the UTF-8 encoding of the input. */
    readonly offset: number,
    message: string,
  ) {
    super(
      `${message} (at byte ${offset}); the fast signer only signs documents in canonical form: use signXml for others`,
    );
  }
}

/** Where the root element lies in the UTF-8 bytes. */
export interface RootSpan {
  /** First byte of the root start tag. */
  start: number;
  /** First byte of the root end tag: the signature goes here. */
  closeTag: number;
  /** One past the last byte of the root end tag. */
  end: number;
}

const LT = 0x3c,
  GT = 0x3e,
  SLASH = 0x2f,
  BANG = 0x21,
  QUESTION = 0x3f,
  AMP = 0x26,
  COLON = 0x3a;
const SP = 0x20,
  TAB = 0x09,
  LF = 0x0a,
  CR = 0x0d;

// Allowed XML declaration: version 1.0, UTF-8 if an encoding is named (we digest UTF-8 bytes).
const DECLARATION =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["'])1\.0\1([ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["'])utf-8\3)?([ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["'])(yes|no)\5)?[ \t\r\n]*\?>/i;

const isWhitespace = (b: number) => b === SP || b === TAB || b === LF || b === CR;
const isNameStart = (b: number) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;

// Byte classes, so the hot loops do one table lookup per byte.
const NAME_CHAR = new Uint8Array(256);
// Text bytes needing no further look: not markup, not whitespace, not a control, not 0xEF.
const PLAIN_TEXT = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  NAME_CHAR[b] = isNameStart(b) || (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2e ? 1 : 0;
  PLAIN_TEXT[b] = b > 0x20 && b !== LT && b !== GT && b !== AMP && b !== 0xef ? 1 : 0;
}

// "Signature" in ASCII: an element with that name means the document is already signed.
const SIGNATURE = [0x53, 0x69, 0x67, 0x6e, 0x61, 0x74, 0x75, 0x72, 0x65];

// The only entity references C14N 1.0 writes in text: &amp; &lt; &gt; &#xD;
const ENTITIES: readonly number[][] = [
  [0x61, 0x6d, 0x70, 0x3b],
  [0x6c, 0x74, 0x3b],
  [0x67, 0x74, 0x3b],
  [0x23, 0x78, 0x44, 0x3b],
];

/**
 * Checks `bytes` (the UTF-8 encoding of `xml`) and returns the root element's span, or throws
 * NotCanonicalError naming the first rule broken.
 */
export function checkCanonical(xml: string, bytes: Uint8Array): RootSpan {
  return checkRootElement(bytes, rootStart(xml, bytes));
}

/**
 * Where the root element starts: past an allowed XML declaration and whitespace. Throws
 * NotCanonicalError for what may not come before it, as checkCanonical would.
 */
export function rootStart(xml: string, bytes: Uint8Array): number {
  if (!xml.isWellFormed()) throw new NotCanonicalError("invalid_character", 0, "Text contains a lone UTF-16 surrogate");
  if (xml.charCodeAt(0) === 0xfeff)
    throw new NotCanonicalError("byte_order_mark", 0, "Text starts with a byte order mark");

  let i = 0;
  const n = bytes.length;
  if (xml.startsWith("<?xml")) {
    const m = DECLARATION.exec(xml.slice(0, 200));
    if (!m) throw new NotCanonicalError("xml_declaration", 0, "XML declaration is not version 1.0 with UTF-8 encoding");
    i = m[0].length; // the declaration is ASCII, so string and byte offsets agree
  }
  while (i < n && isWhitespace(bytes[i]!)) i++;
  if (i >= n || bytes[i] !== LT) throw new NotCanonicalError("content_outside_root", i, "Expected the root element");
  return i;
}

/** The rest of checkCanonical, from the root start tag at `start` on. */
export function checkRootElement(bytes: Uint8Array, start: number): RootSpan {
  // The quick pass accepts what our serializer writes; anything it is unsure of is decided in full.
  return scanCanonicalRoot(bytes, start) ?? checkRootElementInFull(bytes, start);
}

/** checkRootElement without the quick pass: slower, and it names the first rule broken. */
export function checkRootElementInFull(bytes: Uint8Array, start: number): RootSpan {
  const n = bytes.length;
  let i = start;
  // Per open element: where its name starts and ends, whether it has child elements or text.
  const nameStart: number[] = [];
  const nameEnd: number[] = [];
  const hasChild: boolean[] = [];
  // 0: no text yet, 1: text, 2: whitespace-only text (refused as such unless a child follows).
  const hasText: number[] = [];
  let depth = 0;

  while (i < n) {
    const b = bytes[i]!;
    if (b === LT) {
      const next = bytes[i + 1];
      if (next === SLASH) {
        const ns = i + 2;
        let j = ns;
        while (j < n && NAME_CHAR[bytes[j]!] === 1) j++;
        if (bytes[j] !== GT) throw new NotCanonicalError("mismatched_tag", i, "Malformed end tag");
        if (depth === 0) throw new NotCanonicalError("mismatched_tag", i, "End tag without a start tag");
        const top = depth - 1;
        const os = nameStart[top]!,
          oe = nameEnd[top]!;
        if (oe - os !== j - ns || !sameBytes(bytes, os, ns, j - ns)) {
          throw new NotCanonicalError("mismatched_tag", i, "End tag does not match its start tag");
        }
        if (hasText[top] === 2)
          throw new NotCanonicalError(
            "whitespace_only_text",
            i,
            "Whitespace-only text (verifiers that drop whitespace would see an empty element)",
          );
        if (!hasChild[top] && !hasText[top]) throw new NotCanonicalError("empty_element", i, "Empty element");
        depth--;
        i = j + 1;
        if (depth === 0) {
          let k = i;
          while (k < n && isWhitespace(bytes[k]!)) k++;
          if (k !== n) throw new NotCanonicalError("content_outside_root", k, "Content after the root element");
          return { start, closeTag: ns - 2, end: i };
        }
        continue;
      }
      if (next === BANG) {
        if (bytes[i + 2] === 0x2d) throw new NotCanonicalError("comment", i, "Comment");
        if (bytes[i + 2] === 0x5b) throw new NotCanonicalError("cdata", i, "CDATA section");
        throw new NotCanonicalError("doctype", i, "DOCTYPE or markup declaration");
      }
      if (next === QUESTION) throw new NotCanonicalError("processing_instruction", i, "Processing instruction");
      // Start tag: a bare name and '>'.
      const ns = i + 1;
      if (ns >= n || !isNameStart(bytes[ns]!))
        throw new NotCanonicalError("invalid_name", i, "Element name is not a plain ASCII XML name");
      let j = ns + 1;
      while (j < n && NAME_CHAR[bytes[j]!] === 1) j++;
      if (j - ns === SIGNATURE.length && SIGNATURE.every((v, k) => bytes[ns + k] === v)) {
        throw new NotCanonicalError("already_signed", i, "The document already has a Signature element");
      }
      const c = bytes[j];
      if (c !== GT) {
        if (c === COLON) throw new NotCanonicalError("namespace_prefix", i, "Namespace-prefixed element");
        if (c === SLASH) throw new NotCanonicalError("self_closing_element", i, "Self-closing element");
        if (c !== undefined && isWhitespace(c))
          throw new NotCanonicalError("attribute", i, "Attribute or namespace declaration");
        if (c === undefined) throw new NotCanonicalError("unterminated", i, "Unterminated start tag");
        throw new NotCanonicalError("invalid_name", i, "Element name is not a plain ASCII XML name");
      }
      if (depth > 0) {
        if (hasText[depth - 1])
          throw new NotCanonicalError("whitespace_between_elements", i, "Mixed content: text beside a child element");
        hasChild[depth - 1] = true;
      }
      nameStart[depth] = ns;
      nameEnd[depth] = j;
      hasChild[depth] = false;
      hasText[depth] = 0;
      depth++;
      i = j + 1;
      continue;
    }

    // A text run up to the next '<'.
    const textStart = i;
    let onlyWhitespace = true;
    while (i < n) {
      if (PLAIN_TEXT[bytes[i]!] === 1) {
        onlyWhitespace = false;
        i++;
        while (i < n && PLAIN_TEXT[bytes[i]!] === 1) i++;
        continue;
      }
      const t = bytes[i]!;
      if (t === LT) break;
      if (t < 0x20) {
        if (t === CR)
          throw new NotCanonicalError("text_escaping", i, "Literal carriage return in text (C14N writes &#xD;)");
        if (t !== LF && t !== TAB) throw new NotCanonicalError("invalid_character", i, "Control character in text");
      } else if (t === AMP) {
        onlyWhitespace = false;
        const len = entityLength(bytes, i + 1);
        if (len === 0)
          throw new NotCanonicalError("text_escaping", i, "Entity reference other than &amp; &lt; &gt; &#xD;");
        i += len + 1;
        continue;
      } else if (t === GT) {
        throw new NotCanonicalError("text_escaping", i, "Literal '>' in text (C14N writes &gt;)");
      } else if (t === 0xef && bytes[i + 1] === 0xbf && (bytes[i + 2] === 0xbe || bytes[i + 2] === 0xbf)) {
        throw new NotCanonicalError("invalid_character", i, "U+FFFE or U+FFFF is not an XML character");
      } else if (t !== SP) {
        onlyWhitespace = false;
      }
      i++;
    }
    if (depth === 0) throw new NotCanonicalError("content_outside_root", textStart, "Text outside the root element");
    if (hasChild[depth - 1])
      throw new NotCanonicalError("whitespace_between_elements", textStart, "Text or whitespace between elements");
    hasText[depth - 1] = onlyWhitespace ? 2 : 1;
  }
  throw new NotCanonicalError("unterminated", n, "The root element is not closed");
}

function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (bytes[a + k] !== bytes[b + k]) return false;
  return true;
}

/** Length of an allowed entity reference body starting at `at` (after '&'), or 0. */
function entityLength(bytes: Uint8Array, at: number): number {
  outer: for (const entity of ENTITIES) {
    for (let k = 0; k < entity.length; k++) if (bytes[at + k] !== entity[k]) continue outer;
    return entity.length;
  }
  return 0;
}
