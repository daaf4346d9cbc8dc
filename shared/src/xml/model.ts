/**
 * The XSD-derived document model, expanded from the compact generated data into a tree that the
 * serializer, parser, structure check and canonicalizer walk. Built lazily, once per kind.
 */
import { XSD_TREES, XSD_TYPES } from "../generated/xsd-model.ts";
import { TIPOS_ECF, isTipoeCF, type TipoeCF } from "../tipos.ts";
import { simpleType, type SimpleType } from "./facets.ts";
import type { RawFacets, RawNode } from "./model-types.ts";

export type { RawFacets, RawNode } from "./model-types.ts";

/** Every document kind we have a schema for: the ten e-CF types and the auxiliary documents. */
export const DOCUMENT_KINDS = [...TIPOS_ECF, "RFCE", "ARECF", "ACECF", "ANECF", "Semilla"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export function isDocumentKind(value: unknown): value is DocumentKind {
  return typeof value === "string" && (DOCUMENT_KINDS as readonly string[]).includes(value);
}

/**
 * How an element appears in the JSON document:
 * - `leaf`: a string (numbers accepted on input);
 * - `object`: an object keyed by child element names;
 * - `array`: a container whose only child repeats (`DetallesItems` → `Item[]`): a JSON array of
 *   the child's values, the child's own name does not appear in JSON.
 */
export type JsonShape = "leaf" | "object" | "array";

export interface ModelElement {
  readonly name: string;
  readonly minOccurs: number;
  /** `Infinity` when unbounded. */
  readonly maxOccurs: number;
  readonly shape: JsonShape;
  /** Facets of a leaf's simple type. */
  readonly facets?: RawFacets;
  /** The same facets compiled for checking (one per simple type, shared by its leaves). */
  readonly simpleType?: SimpleType;
  /** Child elements in sequence order (objects and arrays). */
  readonly children?: readonly ModelElement[];
  readonly childByName?: ReadonlyMap<string, ModelElement>;
  /** For `array` containers: the repeated child element. */
  readonly item?: ModelElement;
  /**
   * A leaf or object that may occur more than once without a dedicated container (ANECF
   * `NoLinea`): one occurrence is a plain value, several are a JSON array.
   */
  readonly repeated: boolean;
  /** Its place in its parent's sequence (0 for a root and for an array's item). */
  readonly position: number;
}

export interface DocumentModel {
  readonly kind: DocumentKind;
  /** Root element name: `ECF`, `RFCE`, `ARECF`, `ACECF`, `ANECF`, `SemillaModel`. */
  readonly rootName: string;
  /** The root element; the JSON document is its content (an object). */
  readonly root: ModelElement;
  /** The trailing `xs:any` slot where the Signature goes, if the schema has one. */
  readonly signatureSlot: { readonly minOccurs: number; readonly maxOccurs: number } | null;
}

function toMax(n: number): number {
  return n < 0 ? Infinity : n;
}

/**
 * Every element is built by this one function, so all of them share one object shape: the
 * serializer, canonicalizer and checks read `shape`, `name` and `children` for every node of every
 * document, and one shape keeps those reads monomorphic in V8.
 */
function element(
  name: string,
  minOccurs: number,
  maxOccurs: number,
  shape: JsonShape,
  repeated: boolean,
  position: number,
  parts: Partial<ModelElement>,
): ModelElement {
  return {
    name,
    minOccurs,
    maxOccurs,
    shape,
    facets: parts.facets,
    simpleType: parts.simpleType,
    children: parts.children,
    childByName: parts.childByName,
    item: parts.item,
    repeated,
    position,
  };
}

function expand(raw: RawNode, position: number): ModelElement {
  const [name, min, max, content] = raw;
  if (typeof content === "number") {
    const facets = XSD_TYPES[content];
    if (!facets) throw new Error(`xsd-model: bad type index ${content}`);
    return element(name, min, toMax(max), "leaf", toMax(max) > 1, position, { facets, simpleType: simpleType(facets) });
  }
  const children = (content ?? []).filter((c) => c[0] !== "*").map((c, i) => expand(c, i));
  const only = children.length === 1 ? children[0] : undefined;
  const isArray = only !== undefined && only.maxOccurs > 1;
  return element(name, min, toMax(max), isArray ? "array" : "object", toMax(max) > 1, position, {
    children,
    childByName: new Map(children.map((c) => [c.name, c])),
    item: isArray ? element(only.name, only.minOccurs, only.maxOccurs, only.shape, false, 0, only) : undefined,
  });
}

const cache = new Map<DocumentKind, DocumentModel>();

/** The model of one document kind (cached). */
export function documentModel(kind: DocumentKind): DocumentModel {
  let m = cache.get(kind);
  if (m) return m;
  const data = XSD_TREES[kind];
  if (!data) throw new Error(`no XSD model for kind ${kind}`);
  const any = data.tree.find((n) => n[0] === "*");
  const root = expand([data.root, 1, 1, data.tree], 0);
  m = {
    kind,
    rootName: data.root,
    root: element(root.name, 1, 1, "object", false, 0, root),
    signatureSlot: any ? { minOccurs: any[1], maxOccurs: toMax(any[2]) } : null,
  };
  cache.set(kind, m);
  return m;
}

/** Finds the model element at a path of element names below the root, e.g. `["Encabezado", "IdDoc"]`. */
export function modelElementAt(kind: DocumentKind, names: readonly string[]): ModelElement | undefined {
  let el: ModelElement | undefined = documentModel(kind).root;
  for (const n of names) {
    if (!el) return undefined;
    if (el.shape === "array" && el.item?.name === n) el = el.item;
    else el = el.childByName?.get(n);
  }
  return el;
}

/** The e-CF type of a JSON document (`Encabezado.IdDoc.TipoeCF`), if it is one of the ten. */
export function tipoeCFOf(document: unknown): TipoeCF | undefined {
  const enc = (document as { Encabezado?: { IdDoc?: { TipoeCF?: unknown } } } | null)?.Encabezado;
  const t = enc?.IdDoc?.TipoeCF;
  const s = typeof t === "number" ? String(t) : t;
  return isTipoeCF(s) ? s : undefined;
}
