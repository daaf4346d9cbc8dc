/**
 * XML → JSON document. A small non-DOM parser for DGII's documents: elements, attributes (read,
 * then ignored by the mapping), text, CDATA, comments and processing instructions. DOCTYPE and
 * entity declarations are refused outright (no XXE, no entity expansion); only the five
 * predefined entities and character references are decoded. Runs anywhere (workerd, browsers).
 */
import { isTipoeCF } from "../tipos.ts";
import { documentModel, isDocumentKind, type DocumentKind, type ModelElement } from "./model.ts";

export class XmlParseError extends Error {
  override name = "XmlParseError";
}

export interface XmlNode {
  /** Qualified name as written (`Signature`, `ds:Signature`). */
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  /** Concatenated character data directly inside this element. */
  text: string;
  /** Line of the start tag (1-based), with `parseXmlTree(xml, { lines: true })`. */
  line?: number;
  /** A CDATA section sits directly inside (XSD forbids even a blank one in element-only content). */
  cdata?: true;
}

export interface XmlParseOptions {
  /** Record each element's start-tag line (for validation messages); costs one scan of the text. */
  lines?: boolean;
}

/** A JSON document: objects keyed by element name, arrays for repeated groups, strings at leaves. */
export type JsonValue = string | JsonValue[] | { [name: string]: JsonValue };
export type JsonDocument = { [name: string]: JsonValue };

const MAX_DEPTH = 64;

// Tag names end at whitespace, '/', '>' or '='.
function isNameEnd(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2f || c === 0x3e || c === 0x3d;
}
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

function decode(raw: string, at: number): string {
  // XML end-of-line handling: literal CR LF and lone CR become LF (a CR survives only as &#xD;).
  let s = raw.indexOf("\r") >= 0 ? raw.replace(/\r\n?/g, "\n") : raw;
  if (s.indexOf("&") < 0) return s;
  s = s.replace(/&([^;&\s]*);?/g, (m, ent: string) => {
    if (!m.endsWith(";")) throw new XmlParseError(`unterminated entity reference near offset ${at}`);
    switch (ent) {
      case "amp":
        return "&";
      case "lt":
        return "<";
      case "gt":
        return ">";
      case "quot":
        return '"';
      case "apos":
        return "'";
    }
    let cp = NaN;
    if (/^#x[0-9a-fA-F]+$/.test(ent)) cp = parseInt(ent.slice(2), 16);
    else if (/^#[0-9]+$/.test(ent)) cp = parseInt(ent.slice(1), 10);
    if (!Number.isNaN(cp) && isXmlChar(cp)) return String.fromCodePoint(cp);
    throw new XmlParseError(`undefined or invalid entity &${ent}; near offset ${at}`);
  });
  return s;
}

/** Parses XML text into a tree. Throws XmlParseError on anything malformed or unsafe. */
export function parseXmlTree(xml: string, options: XmlParseOptions = {}): XmlNode {
  return new TreeReader(xml, options.lines === true).read();
}

/**
 * Start-tag lines, counted lazily: the positions asked for only grow, so one pass in all, and
 * each line feed is looked for once.
 */
class LineCounter {
  private line = 1;
  /** The next line feed not yet counted (-1: none left). */
  private nextFeed: number;

  constructor(private readonly xml: string) {
    this.nextFeed = xml.indexOf("\n");
  }

  lineAt(at: number): number {
    while (this.nextFeed >= 0 && this.nextFeed < at) {
      this.line++;
      this.nextFeed = this.xml.indexOf("\n", this.nextFeed + 1);
    }
    return this.line;
  }
}

/**
 * One forward pass over the text: `pos` is the start of the markup or text being read (error
 * offsets name it), `open` the elements not yet closed, innermost last.
 */
class TreeReader {
  private readonly start: number;
  private pos: number;
  private root: XmlNode | undefined;
  private readonly open: XmlNode[] = [];
  private readonly lines: LineCounter | undefined;

  constructor(
    private readonly xml: string,
    lines: boolean,
  ) {
    this.start = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
    this.pos = this.start;
    this.lines = lines ? new LineCounter(xml) : undefined;
  }

  read(): XmlNode {
    const { xml } = this;
    while (this.pos < xml.length) {
      const lt = xml.indexOf("<", this.pos);
      if (lt === this.pos) this.markup();
      else this.text(lt < 0 ? xml.length : lt);
    }
    const { open, root } = this;
    if (open.length) throw new XmlParseError(`unclosed element <${open[open.length - 1]!.name}>`);
    if (!root) throw new XmlParseError("no root element");
    return root;
  }

  private fail(msg: string): never {
    throw new XmlParseError(`${msg} at offset ${this.pos}`);
  }

  private get current(): XmlNode | undefined {
    return this.open[this.open.length - 1];
  }

  /** Character data up to `end`: it belongs to the open element, and outside the root it may only be blank. */
  private text(end: number): void {
    const raw = this.xml.slice(this.pos, end);
    if (raw.includes("]]>")) this.fail("']]>' in character data");
    const current = this.current;
    if (current) current.text += decode(raw, this.pos);
    else if (raw.trim() !== "") this.fail("text outside the root element");
    this.pos = end;
  }

  /** At "<": dispatches on what follows it. */
  private markup(): void {
    const { xml, pos } = this;
    // End tags are the most frequent markup after start tags: test them first.
    if (xml.charCodeAt(pos + 1) === 0x2f /* / */) this.endTag();
    else if (xml.startsWith("<!--", pos)) this.comment();
    else if (xml.startsWith("<![CDATA[", pos)) this.cdata();
    // DOCTYPE, ENTITY and friends: refused, this is where XXE and entity bombs live.
    else if (xml.startsWith("<!", pos)) this.fail("DOCTYPE and markup declarations are not allowed");
    else if (xml.startsWith("<?", pos)) this.processingInstruction();
    else this.startTag();
  }

  private endTag(): void {
    const { xml, pos } = this;
    const end = xml.indexOf(">", pos);
    if (end < 0) this.fail("unterminated end tag");
    const top = this.open.pop();
    if (!top || !xml.startsWith(top.name, pos + 2) || xml.slice(pos + 2 + top.name.length, end).trim() !== "") {
      this.fail(`mismatched end tag </${xml.slice(pos + 2, end).trim()}>`);
    }
    this.pos = end + 1;
  }

  private comment(): void {
    const { xml, pos } = this;
    const end = xml.indexOf("-->", pos + 4);
    if (end < 0) this.fail("unterminated comment");
    // XML forbids "--" inside a comment and a comment ending in "--->".
    if (xml.slice(pos + 4, end).includes("--") || xml.charCodeAt(end - 1) === 0x2d) this.fail("'--' in a comment");
    this.pos = end + 3;
  }

  private cdata(): void {
    const { xml, pos } = this;
    const current = this.current;
    if (!current) this.fail("CDATA outside the root element");
    const end = xml.indexOf("]]>", pos);
    if (end < 0) this.fail("unterminated CDATA section");
    current.text += xml.slice(pos + 9, end).replace(/\r\n?/g, "\n");
    current.cdata = true;
    this.pos = end + 3;
  }

  /** Skipped, but the XML declaration (target "xml", any case) may only open the document. */
  private processingInstruction(): void {
    const { xml, pos } = this;
    if (pos > this.start && /^<\?xml(?:[ \t\n\r]|\?>)/i.test(xml.slice(pos, pos + 7)))
      this.fail("XML declaration not at the start of the document");
    const end = xml.indexOf("?>", pos);
    if (end < 0) this.fail("unterminated processing instruction");
    this.pos = end + 2;
  }

  private startTag(): void {
    const { xml, pos } = this;
    let i = pos + 1;
    while (i < xml.length && !isNameEnd(xml.charCodeAt(i))) i++;
    const name = xml.slice(pos + 1, i);
    if (name === "") this.fail("empty element name");
    const node: XmlNode = { name, attributes: {}, children: [], text: "" };
    if (this.lines) node.line = this.lines.lineAt(pos);
    const close = this.attributes(node, i);
    const selfClosing = xml.charCodeAt(close) === 0x2f; /* / */
    this.attach(node, selfClosing);
    this.pos = close + (selfClosing ? 2 : 1);
  }

  /** Reads the attributes of `node` from `i` on; returns where its start tag closes (its `>` or `/>`). */
  private attributes(node: XmlNode, from: number): number {
    const { xml } = this;
    let i = from;
    for (;;) {
      while (i < xml.length && isSpace(xml.charCodeAt(i))) i++;
      if (i >= xml.length) this.fail("unterminated start tag");
      if (xml[i] === ">" || xml.startsWith("/>", i)) return i;
      i = this.attribute(node, i);
    }
  }

  /** Reads one `name="value"` at `i` into `node`; returns the position after its closing quote. */
  private attribute(node: XmlNode, i: number): number {
    const { xml } = this;
    const len = xml.length;
    const eq = xml.indexOf("=", i);
    if (eq < 0) this.fail("malformed attribute");
    const name = xml.slice(i, eq).trim();
    let q = eq + 1;
    while (q < len && isSpace(xml.charCodeAt(q))) q++;
    const quote = xml[q];
    if (quote !== '"' && quote !== "'") this.fail("attribute value must be quoted");
    const close = xml.indexOf(quote, q + 1);
    if (close < 0) this.fail("unterminated attribute value");
    const value = xml.slice(q + 1, close);
    if (value.includes("<")) this.fail("'<' in attribute value");
    if (name === "" || /\s/.test(name)) this.fail("malformed attribute name");
    if (Object.hasOwn(node.attributes, name)) this.fail(`attribute ${name} redefined`);
    node.attributes[name] = decode(value, q);
    const after = close + 1;
    const next = xml.charCodeAt(after);
    if (after < len && next !== 0x3e && next !== 0x2f && !isSpace(next))
      this.fail("attributes must be separated by whitespace");
    return after;
  }

  /** Hangs `node` under the open element (or makes it the root) and, unless self-closing, opens it. */
  private attach(node: XmlNode, selfClosing: boolean): void {
    const parent = this.current;
    if (parent) parent.children.push(node);
    else if (this.root) this.fail("more than one root element");
    else this.root = node;
    if (selfClosing) return;
    this.open.push(node);
    if (this.open.length > MAX_DEPTH) this.fail("document nested too deeply");
  }
}

function localName(qname: string): string {
  const c = qname.indexOf(":");
  return c < 0 ? qname : qname.slice(c + 1);
}

/** Elements the model does not know keep their content in a best-effort shape for the structure check. */
function genericValue(node: XmlNode): JsonValue {
  if (node.children.length === 0) return node.text;
  const out: JsonDocument = {};
  for (const c of node.children) add(out, c.name, genericValue(c));
  return out;
}

// Arrays built from repeated occurrences (as opposed to a value that is itself an array).
const multi = new WeakSet<JsonValue[]>();

function add(out: JsonDocument, key: string, v: JsonValue): void {
  const prev = out[key];
  if (prev === undefined) out[key] = v;
  else if (Array.isArray(prev) && multi.has(prev)) prev.push(v);
  else {
    const arr = [prev, v];
    multi.add(arr);
    out[key] = arr;
  }
}

// biome-ignore lint/suspicious/noShadowRestrictedNames: a module function, never called as Object.prototype.valueOf
function valueOf(node: XmlNode, el: ModelElement): JsonValue {
  if (el.shape === "leaf") return node.children.length ? genericValue(node) : node.text;
  if (el.shape === "array") {
    const item = el.item!;
    return node.children.map((c) => (c.name === item.name ? valueOf(c, item) : genericValue(c)));
  }
  return objectOf(node, el, false);
}

function objectOf(node: XmlNode, el: ModelElement, isRoot: boolean): JsonDocument {
  const out: JsonDocument = {};
  if (node.children.length === 0 && node.text.trim() !== "" && !isRoot) {
    // Text where the schema wants elements: keep it visible to the structure check.
    return { "#text": node.text };
  }
  for (const c of node.children) {
    if (isRoot && localName(c.name) === "Signature") continue;
    const m = el.childByName!.get(c.name);
    add(out, c.name, m ? valueOf(c, m) : genericValue(c));
  }
  return out;
}

/** Maps a parsed tree onto the JSON document of `kind` (a trailing Signature is dropped). */
export function treeToDocument(tree: XmlNode, kind: DocumentKind): JsonDocument {
  const model = documentModel(kind);
  if (tree.name !== model.rootName) throw new XmlParseError(`expected root <${model.rootName}>, found <${tree.name}>`);
  return objectOf(tree, model.root, true);
}

/** Parses XML of a known kind into its JSON document. */
export function xmlToDocument(xml: string, kind: DocumentKind): JsonDocument {
  return treeToDocument(parseXmlTree(xml), kind);
}

const ROOT_KINDS: Record<string, DocumentKind> = {
  RFCE: "RFCE",
  ARECF: "ARECF",
  ACECF: "ACECF",
  ANECF: "ANECF",
  SemillaModel: "Semilla",
};

function tipoOfTree(tree: XmlNode): string | undefined {
  const enc = tree.children.find((c) => c.name === "Encabezado");
  const id = enc?.children.find((c) => c.name === "IdDoc");
  return id?.children.find((c) => c.name === "TipoeCF")?.text.trim();
}

/** The kind of a parsed document: an e-CF by its TipoeCF, or the auxiliary document by its root. */
export function documentKindOf(tree: XmlNode): DocumentKind | undefined {
  if (tree.name === "ECF") {
    const t = tipoOfTree(tree);
    return isTipoeCF(t) ? t : undefined;
  }
  const k = ROOT_KINDS[tree.name];
  return k && isDocumentKind(k) ? k : undefined;
}

/**
 * Parses an e-CF into its JSON document: leaves as strings, arrays for repeated groups, the
 * Signature dropped. An unknown TipoeCF is read with the E31 model (the widest), so the
 * document can still be inspected and rejected with a precise problem.
 */
export function xmlToEcf(xml: string): JsonDocument {
  const tree = parseXmlTree(xml);
  if (tree.name !== "ECF") throw new XmlParseError(`expected root <ECF>, found <${tree.name}>`);
  const t = tipoOfTree(tree);
  return treeToDocument(tree, isTipoeCF(t) ? t : "31");
}
