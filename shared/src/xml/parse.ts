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
  const start = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  let pos = start;
  const len = xml.length;
  // Lines are counted lazily up to each start tag: positions only grow, so one pass in all.
  const lines = options.lines === true;
  let line = 1;
  // The next line feed not yet counted (-1: none left); found once, so each is looked for once.
  let nextFeed = lines ? xml.indexOf("\n") : -1;
  const lineAt = (at: number): number => {
    while (nextFeed >= 0 && nextFeed < at) {
      line++;
      nextFeed = xml.indexOf("\n", nextFeed + 1);
    }
    return line;
  };
  let root: XmlNode | undefined;
  const stack: XmlNode[] = [];

  const fail = (msg: string): never => {
    throw new XmlParseError(`${msg} at offset ${pos}`);
  };
  const skipUntil = (end: string, what: string) => {
    const i = xml.indexOf(end, pos);
    if (i < 0) fail(`unterminated ${what}`);
    pos = i + end.length;
  };

  while (pos < len) {
    const lt = xml.indexOf("<", pos);
    const textEnd = lt < 0 ? len : lt;
    if (textEnd > pos) {
      const raw = xml.slice(pos, textEnd);
      if (raw.includes("]]>")) fail("']]>' in character data");
      const top = stack[stack.length - 1];
      if (top) top.text += decode(raw, pos);
      else if (raw.trim() !== "") fail("text outside the root element");
      pos = textEnd;
      continue;
    }
    // At "<". End tags are the most frequent markup after start tags: test them first.
    if (xml.charCodeAt(pos + 1) === 0x2f /* / */) {
      const end = xml.indexOf(">", pos);
      if (end < 0) fail("unterminated end tag");
      const top = stack.pop();
      if (!top || !xml.startsWith(top.name, pos + 2) || xml.slice(pos + 2 + top.name.length, end).trim() !== "") {
        fail(`mismatched end tag </${xml.slice(pos + 2, end).trim()}>`);
      }
      pos = end + 1;
      continue;
    }
    if (xml.startsWith("<!--", pos)) {
      const end = xml.indexOf("-->", pos + 4);
      if (end < 0) fail("unterminated comment");
      // XML forbids "--" inside a comment and a comment ending in "--->".
      if (xml.slice(pos + 4, end).includes("--") || xml.charCodeAt(end - 1) === 0x2d) fail("'--' in a comment");
      pos = end + 3;
    } else if (xml.startsWith("<![CDATA[", pos)) {
      const top = stack[stack.length - 1];
      if (!top) fail("CDATA outside the root element");
      const end = xml.indexOf("]]>", pos);
      if (end < 0) fail("unterminated CDATA section");
      top!.text += xml.slice(pos + 9, end).replace(/\r\n?/g, "\n");
      top!.cdata = true;
      pos = end + 3;
    } else if (xml.startsWith("<!", pos)) {
      // DOCTYPE, ENTITY and friends: refused, this is where XXE and entity bombs live.
      fail("DOCTYPE and markup declarations are not allowed");
    } else if (xml.startsWith("<?", pos)) {
      // The XML declaration (target "xml", any case) may only open the document.
      if (pos > start && /^<\?xml(?:[ \t\n\r]|\?>)/i.test(xml.slice(pos, pos + 7)))
        fail("XML declaration not at the start of the document");
      skipUntil("?>", "processing instruction");
    } else {
      // Start tag.
      let i = pos + 1;
      while (i < len && !isNameEnd(xml.charCodeAt(i))) i++;
      const name = xml.slice(pos + 1, i);
      if (name === "") fail("empty element name");
      const node: XmlNode = { name, attributes: {}, children: [], text: "" };
      if (lines) node.line = lineAt(pos);
      let selfClosing = false;
      for (;;) {
        while (i < len && isSpace(xml.charCodeAt(i))) i++;
        if (i >= len) fail("unterminated start tag");
        if (xml[i] === ">") {
          i++;
          break;
        }
        if (xml.startsWith("/>", i)) {
          i += 2;
          selfClosing = true;
          break;
        }
        const eq = xml.indexOf("=", i);
        if (eq < 0) fail("malformed attribute");
        const attr = xml.slice(i, eq).trim();
        let q = eq + 1;
        while (q < len && isSpace(xml.charCodeAt(q))) q++;
        const quote = xml[q];
        if (quote !== '"' && quote !== "'") fail("attribute value must be quoted");
        const close = xml.indexOf(quote!, q + 1);
        if (close < 0) fail("unterminated attribute value");
        const value = xml.slice(q + 1, close);
        if (value.includes("<")) fail("'<' in attribute value");
        if (attr === "" || /\s/.test(attr)) fail("malformed attribute name");
        if (Object.hasOwn(node.attributes, attr)) fail(`attribute ${attr} redefined`);
        node.attributes[attr] = decode(value, q);
        i = close + 1;
        const next = xml.charCodeAt(i);
        if (i < len && next !== 0x3e && next !== 0x2f && !isSpace(next))
          fail("attributes must be separated by whitespace");
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(node);
      else if (root) fail("more than one root element");
      else root = node;
      if (!selfClosing) {
        stack.push(node);
        if (stack.length > MAX_DEPTH) fail("document nested too deeply");
      }
      pos = i;
    }
  }
  if (stack.length) throw new XmlParseError(`unclosed element <${stack[stack.length - 1]!.name}>`);
  if (!root) throw new XmlParseError("no root element");
  return root;
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
