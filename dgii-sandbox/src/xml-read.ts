// Reading the few fields the sandbox needs out of a received document, on @ecf/shared's safe
// parser (no DOCTYPE, no entity expansion). Validation is not done here: that is the XSD check.
import { parseXmlTree, type XmlNode } from "@ecf/shared";

export class MalformedXmlError extends Error {}

export type XmlElement = XmlNode;

/** Parses XML and returns its root element; MalformedXmlError for anything not well-formed. */
export function parseXml(xml: string): XmlElement {
  try {
    return parseXmlTree(xml);
  } catch (error) {
    throw new MalformedXmlError(error instanceof Error ? error.message : String(error));
  }
}

/** Element name without its namespace prefix (`ds:Signature` → `Signature`). */
export function localName(element: XmlElement): string {
  const colon = element.name.indexOf(":");
  return colon === -1 ? element.name : element.name.slice(colon + 1);
}

/** The first element reached by following local names from `from` (the root is not named). */
export function find(from: XmlElement, path: readonly string[]): XmlElement | null {
  let current: XmlElement | null = from;
  for (const name of path) {
    if (!current) return null;
    current = current.children.find((child) => localName(child) === name) ?? null;
  }
  return current;
}

/** Trimmed text of the element at `path`, or undefined when absent or empty. */
export function text(from: XmlElement, path: readonly string[]): string | undefined {
  const value = find(from, path)?.text.trim();
  return value ? value : undefined;
}

/** Local names of the element children at `path`. */
export function childNames(from: XmlElement, path: readonly string[]): string[] {
  return find(from, path)?.children.map(localName) ?? [];
}

/** All elements at `path` where the last step may repeat (e.g. table rows). */
export function findAll(from: XmlElement, path: readonly string[]): XmlElement[] {
  const parent = find(from, path.slice(0, -1));
  const last = path[path.length - 1];
  return parent ? parent.children.filter((child) => localName(child) === last) : [];
}
