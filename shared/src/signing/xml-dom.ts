// Parsing XML we did not write, for xmldsigjs: DOCTYPE and entity declarations are refused before
// the parser sees them (no entity expansion, no external references).
import { configureXmldsig, xmldsig } from "./xmldsig-setup.ts";

export class UnsafeXmlError extends Error {
  override readonly name = "UnsafeXmlError";
}

const ELEMENT = 1;
const TEXT = 3;

/** Parses with the DOM xmldsigjs uses in this runtime; throws on DOCTYPE or on any parse error. */
export function parseXml(xml: string): Document {
  configureXmldsig();
  if (xml.charCodeAt(0) === 0xfeff) xml = xml.slice(1);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new UnsafeXmlError("DOCTYPE and entity declarations are not accepted");
  // xmldom applies XML 1.1 line-end handling to U+0085 and U+2028 (turning them into LF); XML 1.0
  // readers (libxml2, .NET, and our fast signer) keep them. As character references they survive.
  const doc = xmldsig.Parse(xml.replace(/\u0085/g, "&#x85;").replace(/\u2028/g, "&#x2028;"));
  // Native parsers (browsers) report errors as a <parsererror> element instead of throwing.
  if (!doc.documentElement || doc.getElementsByTagName("parsererror").length > 0) throw new Error("XML parse error");
  return doc;
}

/**
 * Removes whitespace-only text nodes, as .NET's XmlDocument does by default (PreserveWhitespace =
 * false). DGII verifies that way: documents signed compact and shipped indented still verify there.
 */
export function dropWhitespaceText(node: Node): boolean {
  let removed = false;
  let child = node.firstChild;
  while (child) {
    const next = child.nextSibling;
    if (child.nodeType === TEXT && /^[ \t\r\n]*$/.test(child.nodeValue ?? "")) {
      node.removeChild(child);
      removed = true;
    } else if (child.nodeType === ELEMENT && dropWhitespaceText(child)) {
      removed = true;
    }
    child = next;
  }
  return removed;
}

/** The XML declaration at the start of `xml`, if any. */
export function xmlDeclaration(xml: string): string {
  const m = /^\uFEFF?(<\?xml[^?]*\?>)/.exec(xml);
  return m ? m[1]! : "";
}
