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
  return new CanonicalReader(bytes, start).read();
}

/** Text seen so far in an open element: none, some, or only whitespace (refused unless a child follows). */
const NO_TEXT = 0,
  TEXT = 1,
  BLANK_TEXT = 2;

/** One forward pass from the root start tag: `i` is the next byte to read, `depth` the open elements. */
class CanonicalReader {
  private i: number;
  private depth = 0;
  // Per open element: where its name starts and ends, whether it has child elements, its text so far.
  private readonly nameStart: number[] = [];
  private readonly nameEnd: number[] = [];
  private readonly hasChild: boolean[] = [];
  private readonly hasText: number[] = [];

  constructor(
    private readonly bytes: Uint8Array,
    private readonly start: number,
  ) {
    this.i = start;
  }

  read(): RootSpan {
    const { bytes } = this;
    while (this.i < bytes.length) {
      if (bytes[this.i] !== LT) this.text();
      else if (bytes[this.i + 1] === SLASH) {
        const root = this.endTag();
        if (root) return root;
      } else if (bytes[this.i + 1] === BANG || bytes[this.i + 1] === QUESTION) this.refuseDeclaration();
      else this.startTag();
    }
    throw new NotCanonicalError("unterminated", bytes.length, "The root element is not closed");
  }

  /** Comments, CDATA, DOCTYPE and processing instructions have no place in the canonical form. */
  private refuseDeclaration(): never {
    const { bytes, i } = this;
    if (bytes[i + 1] === QUESTION) throw new NotCanonicalError("processing_instruction", i, "Processing instruction");
    if (bytes[i + 2] === 0x2d) throw new NotCanonicalError("comment", i, "Comment");
    if (bytes[i + 2] === 0x5b) throw new NotCanonicalError("cdata", i, "CDATA section");
    throw new NotCanonicalError("doctype", i, "DOCTYPE or markup declaration");
  }

  /** A start tag is a bare name and '>': no attribute, no namespace prefix, not self-closing, not a Signature. */
  private startTag(): void {
    const { bytes, i } = this;
    const n = bytes.length;
    const ns = i + 1;
    if (ns >= n || !isNameStart(bytes[ns]!))
      throw new NotCanonicalError("invalid_name", i, "Element name is not a plain ASCII XML name");
    let j = ns + 1;
    while (j < n && NAME_CHAR[bytes[j]!] === 1) j++;
    if (j - ns === SIGNATURE.length && SIGNATURE.every((v, k) => bytes[ns + k] === v)) {
      throw new NotCanonicalError("already_signed", i, "The document already has a Signature element");
    }
    if (bytes[j] !== GT) refuseAfterName(bytes[j], i);
    this.openElement(ns, j);
    this.i = j + 1;
  }

  private openElement(nameStart: number, nameEnd: number): void {
    const { depth } = this;
    if (depth > 0) {
      if (this.hasText[depth - 1])
        throw new NotCanonicalError(
          "whitespace_between_elements",
          this.i,
          "Mixed content: text beside a child element",
        );
      this.hasChild[depth - 1] = true;
    }
    this.nameStart[depth] = nameStart;
    this.nameEnd[depth] = nameEnd;
    this.hasChild[depth] = false;
    this.hasText[depth] = NO_TEXT;
    this.depth++;
  }

  /** Closes the innermost element; returns the root's span when that was the root. */
  private endTag(): RootSpan | undefined {
    const { bytes, i } = this;
    const n = bytes.length;
    const ns = i + 2;
    let j = ns;
    while (j < n && NAME_CHAR[bytes[j]!] === 1) j++;
    if (bytes[j] !== GT) throw new NotCanonicalError("mismatched_tag", i, "Malformed end tag");
    this.closeElement(ns, j);
    this.i = j + 1;
    return this.depth === 0 ? this.rootSpan(i) : undefined;
  }

  /** The element closed by the end tag whose name spans `ns`..`ne` must match it and must not be empty. */
  private closeElement(ns: number, ne: number): void {
    const { bytes, i, depth } = this;
    if (depth === 0) throw new NotCanonicalError("mismatched_tag", i, "End tag without a start tag");
    const top = depth - 1;
    const os = this.nameStart[top]!;
    const oe = this.nameEnd[top]!;
    if (oe - os !== ne - ns || !sameBytes(bytes, os, ns, ne - ns)) {
      throw new NotCanonicalError("mismatched_tag", i, "End tag does not match its start tag");
    }
    if (this.hasText[top] === BLANK_TEXT)
      throw new NotCanonicalError(
        "whitespace_only_text",
        i,
        "Whitespace-only text (verifiers that drop whitespace would see an empty element)",
      );
    if (!this.hasChild[top] && !this.hasText[top]) throw new NotCanonicalError("empty_element", i, "Empty element");
    this.depth--;
  }

  /** After the root's end tag (at `closeTag`) only whitespace may follow. */
  private rootSpan(closeTag: number): RootSpan {
    const { bytes } = this;
    let k = this.i;
    while (k < bytes.length && isWhitespace(bytes[k]!)) k++;
    if (k !== bytes.length) throw new NotCanonicalError("content_outside_root", k, "Content after the root element");
    return { start: this.start, closeTag, end: this.i };
  }

  /** A text run up to the next '<': it must sit inside an element that has no child elements. */
  private text(): void {
    const textStart = this.i;
    const onlyWhitespace = this.textRun();
    const { depth } = this;
    if (depth === 0) throw new NotCanonicalError("content_outside_root", textStart, "Text outside the root element");
    if (this.hasChild[depth - 1])
      throw new NotCanonicalError("whitespace_between_elements", textStart, "Text or whitespace between elements");
    this.hasText[depth - 1] = onlyWhitespace ? BLANK_TEXT : TEXT;
  }

  /** Reads text escaped exactly as C14N escapes it, up to the next '<'; whether it was only spaces and line ends. */
  private textRun(): boolean {
    const { bytes } = this;
    const n = bytes.length;
    let i = this.i;
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
      if (t === AMP) {
        onlyWhitespace = false;
        i += entityReferenceLength(bytes, i);
        continue;
      }
      checkTextByte(bytes, i);
      if (t !== SP && t !== LF && t !== TAB) onlyWhitespace = false;
      i++;
    }
    this.i = i;
    return onlyWhitespace;
  }
}

/** What may not follow an element name (at `at`, in the start tag at `tag`), named by the rule it breaks. */
function refuseAfterName(at: number | undefined, tag: number): never {
  if (at === COLON) throw new NotCanonicalError("namespace_prefix", tag, "Namespace-prefixed element");
  if (at === SLASH) throw new NotCanonicalError("self_closing_element", tag, "Self-closing element");
  if (at !== undefined && isWhitespace(at))
    throw new NotCanonicalError("attribute", tag, "Attribute or namespace declaration");
  if (at === undefined) throw new NotCanonicalError("unterminated", tag, "Unterminated start tag");
  throw new NotCanonicalError("invalid_name", tag, "Element name is not a plain ASCII XML name");
}

/** Throws for a text byte C14N would have written otherwise (or that XML refuses). */
function checkTextByte(bytes: Uint8Array, i: number): void {
  const t = bytes[i]!;
  if (t < 0x20) {
    if (t === CR)
      throw new NotCanonicalError("text_escaping", i, "Literal carriage return in text (C14N writes &#xD;)");
    if (t !== LF && t !== TAB) throw new NotCanonicalError("invalid_character", i, "Control character in text");
  } else if (t === GT) {
    throw new NotCanonicalError("text_escaping", i, "Literal '>' in text (C14N writes &gt;)");
  } else if (t === 0xef && bytes[i + 1] === 0xbf && (bytes[i + 2] === 0xbe || bytes[i + 2] === 0xbf)) {
    throw new NotCanonicalError("invalid_character", i, "U+FFFE or U+FFFF is not an XML character");
  }
}

/** The length of the entity reference at `i` ('&' included), refused unless C14N writes it. */
function entityReferenceLength(bytes: Uint8Array, i: number): number {
  const len = entityLength(bytes, i + 1);
  if (len === 0) throw new NotCanonicalError("text_escaping", i, "Entity reference other than &amp; &lt; &gt; &#xD;");
  return len + 1;
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
