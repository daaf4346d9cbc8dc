/**
 * JSON document → compact XML, in each schema's sequence order whatever the JSON key order.
 *
 * The output is canonical (C14N 1.0) by construction apart from the XML declaration: no
 * whitespace between elements, no attributes, no namespaces, no comments, no empty elements,
 * text escaped as C14N escapes it. So the signer can digest the bytes after the declaration as-is.
 */
import { documentModel, tipoeCFOf, type DocumentKind, type ModelElement } from "./model.ts";

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

// Characters XML 1.0 cannot carry at all (C0 controls except tab, LF, CR; U+FFFE/U+FFFF).
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
/** Either a forbidden character or one to escape: most text has neither, and one scan says so. */
const FORBIDDEN_OR_ESCAPED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF&<>\r]/;

/** Escapes text content exactly as XML C14N does: `&amp;` `&lt;` `&gt;` `&#xD;`; quotes stay. */
export function escapeXmlText(text: string): string {
  if (!FORBIDDEN_OR_ESCAPED.test(text)) return text;
  if (FORBIDDEN.test(text)) throw new XmlSerializeError(`text contains a character XML cannot represent`);
  return text.replace(/[&<>\r]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#xD;"));
}

export class XmlSerializeError extends Error {
  override name = "XmlSerializeError";
}

function leafText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v === "" ? undefined : v;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new XmlSerializeError(`not a finite number: ${v}`);
    return String(v);
  }
  if (typeof v === "bigint") return String(v);
  throw new XmlSerializeError(`expected text, got ${Array.isArray(v) ? "array" : typeof v}`);
}

/** Serializes one occurrence of `el` holding `value`; returns "" when nothing is left to emit. */
function writeElement(el: ModelElement, value: unknown): string {
  if (el.shape === "leaf") {
    const t = leafText(value);
    return t === undefined ? "" : `<${el.name}>${escapeXmlText(t)}</${el.name}>`;
  }
  let inner = "";
  if (el.shape === "array") {
    if (!Array.isArray(value)) {
      if (value === undefined || value === null) return "";
      throw new XmlSerializeError(`${el.name}: expected an array`);
    }
    const item = el.item!;
    for (const v of value) inner += writeElement(item, v);
  } else {
    if (value === undefined || value === null) return "";
    if (typeof value !== "object" || Array.isArray(value))
      throw new XmlSerializeError(`${el.name}: expected an object`);
    inner = writeChildren(el, value as Record<string, unknown>);
  }
  return inner === "" ? "" : `<${el.name}>${inner}</${el.name}>`;
}

/**
 * The children of `obj` in `el`'s sequence order. A canonical document already holds its keys in
 * that order, so they are written as they come; the first key out of order sends the object
 * through the schema's sequence instead. Keys the schema does not know are skipped either way.
 */
function writeChildren(el: ModelElement, obj: Record<string, unknown>): string {
  const byName = el.childByName!;
  let out = "";
  let last = -1;
  for (const key in obj) {
    const child = byName.get(key);
    if (child === undefined) continue;
    if (child.position < last) return writeChildrenInSequence(el, obj);
    last = child.position;
    out += writeChild(child, obj[key]);
  }
  return out;
}

function writeChildrenInSequence(el: ModelElement, obj: Record<string, unknown>): string {
  let out = "";
  for (const child of el.children!) out += writeChild(child, obj[child.name]);
  return out;
}

function writeChild(child: ModelElement, v: unknown): string {
  if (v === undefined) return "";
  if (!child.repeated || !Array.isArray(v)) return writeElement(child, v);
  let out = "";
  for (const one of v) out += writeElement(child, one);
  return out;
}

export interface ToXmlOptions {
  /** Emit the `<?xml version="1.0" encoding="utf-8"?>` declaration (default true). */
  declaration?: boolean;
}

/**
 * Serializes a JSON document of `kind`. Keys the schema does not know are not emitted (the
 * structure check reports them); empty strings, null and empty containers are omitted.
 */
export function documentToXml(document: unknown, kind: DocumentKind, options: ToXmlOptions = {}): string {
  if (document === null || typeof document !== "object" || Array.isArray(document)) {
    throw new XmlSerializeError("document must be an object");
  }
  const model = documentModel(kind);
  const body = writeChildren(model.root, document as Record<string, unknown>);
  const root = `<${model.rootName}>${body}</${model.rootName}>`;
  return options.declaration === false ? root : XML_DECLARATION + root;
}

/** Serializes an e-CF; the schema is chosen by `Encabezado.IdDoc.TipoeCF`. */
export function ecfToXml(document: unknown, options: ToXmlOptions = {}): string {
  const tipo = tipoeCFOf(document);
  if (!tipo) throw new XmlSerializeError("Encabezado.IdDoc.TipoeCF is missing or not an e-CF type");
  return documentToXml(document, tipo, options);
}
