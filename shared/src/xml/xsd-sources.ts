/**
 * The official schemas as libxml2 compiles them (patched in memory by the generator), assembled
 * from the deduplicated generated blocks, optionally with the Signature slot made optional.
 */
import { XSD_LAYOUTS, XSD_SIMPLE_TYPE_BLOCKS } from "../generated/xsd-sources.ts";
import type { DocumentKind } from "./model.ts";

const cache = new Map<string, string>();

/**
 * Schema text for `kind`. With `requireSignature: false` the trailing `xs:any` (the Signature
 * slot, minOccurs 1 in most schemas) gets minOccurs="0", to validate documents before signing.
 */
export function xsdSource(kind: DocumentKind, options: { requireSignature?: boolean } = {}): string {
  const requireSignature = options.requireSignature ?? true;
  const key = `${kind}:${requireSignature}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const layout = XSD_LAYOUTS[kind];
  if (!layout) throw new Error(`no XSD for kind ${kind}`);
  const [head, ids, tail] = layout;
  let text = head + ids.map((i) => XSD_SIMPLE_TYPE_BLOCKS[i]).join("") + tail;
  if (!requireSignature) {
    text = text.replace(
      /<xs:any\b([^>]*?)\/>/g,
      (_m, attrs: string) => `<xs:any${attrs.replace(/\s+minOccurs\s*=\s*["'][^"']*["']/, "")} minOccurs="0"/>`,
    );
  }
  cache.set(key, text);
  return text;
}
