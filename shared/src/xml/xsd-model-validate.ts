/**
 * XSD validation of an XML document against DGII's official schemas, in plain TypeScript, driven
 * by the generated model (src/generated/xsd-model.ts). It gives libxml2's verdict for DGII's
 * schemas without libxml2, so it runs anywhere (workerd, browsers, Node) in one synchronous call;
 * test/xsd-model-validate.test.ts holds it to libxml2's verdict on samples, factory documents and
 * systematic mutations of them.
 *
 * What DGII's schemas say, and so what is checked here:
 * - no targetNamespace: the root and every declared element are unqualified (no prefix, no
 *   default namespace in scope); the root must be the schema's one global element;
 * - anonymous complex types with one xs:sequence: children in order, each within its
 *   minOccurs/maxOccurs, only whitespace between them (a CDATA section is character content
 *   even when blank); no attribute is declared anywhere, so only namespace declarations and
 *   xsi:schemaLocation/xsi:noNamespaceSchemaLocation may appear (xsi:nil: nothing is nillable);
 * - leaves of simple types: no child element, the text against the type's facets (whitespace
 *   collapsed for the non-string built-ins, preserved for strings);
 * - the trailing xs:any (processContents="skip", any namespace) takes any one element and
 *   nothing inside it is looked at: the Signature is verifyXml's business.
 * Every sequence in the schemas is deterministic (no name repeats among siblings, the wildcard
 * follows a required element), so matching children greedily gives the schema's answer.
 */
import { checkFacets } from "./facets.ts";
import { documentModel, type DocumentKind, type ModelElement } from "./model.ts";
import { parseXmlTree, XmlParseError, type XmlNode } from "./parse.ts";

export interface XsdValidationResult {
  valid: boolean;
  /** Messages in libxml2's manner, with the start tag's line: `line 12: Element 'MontoItem': ...`. */
  errors: string[];
}

export interface XsdModelValidateOptions {
  /** Require the Signature element the schemas end with (default true). */
  requireSignature?: boolean;
}

const XSI = "http://www.w3.org/2001/XMLSchema-instance";
/** xsi attributes the schema processor reads and allows on any element. */
const XSI_ALLOWED = new Set(["schemaLocation", "noNamespaceSchemaLocation"]);
/** One bad document must not produce an unbounded answer. */
const MAX_ERRORS = 100;
/** XML 1.0 Char production: anything else makes the document not well-formed. */
const NOT_XML_CHAR =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const BLANK = /^[ \t\n\r]*$/;
// XML 1.0 names as the namespaces spec restricts them (NCName, or prefix:NCName).
const NAME_START =
  "A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}";
const NCNAME = `[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040]*`;
const QNAME = new RegExp(`^(?:${NCNAME}:)?${NCNAME}$`, "u");

/**
 * What libxml2's parser refuses and ours lets through (it reads names loosely, for speed):
 * element and attribute names that are no QName, and a prefix bound to the empty namespace.
 */
function notWellFormed(node: XmlNode): string | undefined {
  if (!QNAME.test(node.name)) return `invalid element name '${node.name}'`;
  for (const attr in node.attributes) {
    if (!QNAME.test(attr)) return `invalid attribute name '${attr}' on '${node.name}'`;
    if (attr.startsWith("xmlns:") && node.attributes[attr] === "")
      return `empty namespace for prefix ${attr.slice(6)} on '${node.name}'`;
  }
  for (const child of node.children) {
    const bad = notWellFormed(child);
    if (bad) return bad;
  }
  return undefined;
}

/** One particle of a sequence as the matcher walks it; `element` undefined = the xs:any slot. */
interface Particle {
  readonly element?: ModelElement;
  readonly minOccurs: number;
  readonly maxOccurs: number;
}

/** In-scope namespace bindings: the default namespace under "" and prefixes under their name. */
type Scope = ReadonlyMap<string, string>;

class Run {
  readonly errors: string[] = [];
  constructor(private readonly sequences: (el: ModelElement) => readonly Particle[]) {}

  report(node: XmlNode, name: string, message: string): void {
    if (this.errors.length < MAX_ERRORS)
      this.errors.push(`${node.line ? `line ${node.line}: ` : ""}Element '${name}': ${message}`);
    else if (this.errors.length === MAX_ERRORS) this.errors.push(`(more errors not shown)`);
  }

  /** The namespace scope inside `node`, and the expanded name to show for it (`{ns}local`). */
  enter(node: XmlNode, outer: Scope): { scope: Scope; expanded: string; qualified: boolean } {
    let scope = outer;
    for (const attr in node.attributes) {
      if (attr === "xmlns" || attr.startsWith("xmlns:")) {
        if (scope === outer) scope = new Map(outer);
        (scope as Map<string, string>).set(attr === "xmlns" ? "" : attr.slice(6), node.attributes[attr]!);
      }
    }
    const colon = node.name.indexOf(":");
    // An unbound prefix leaves the name as written, in no namespace (libxml2 recovers so too).
    const ns = colon < 0 ? scope.get("") : scope.get(node.name.slice(0, colon));
    const local = colon < 0 || ns === undefined ? node.name : node.name.slice(colon + 1);
    const qualified = ns !== undefined && ns !== "";
    return { scope, expanded: qualified ? `{${ns}}${local}` : local, qualified };
  }

  attributes(node: XmlNode, name: string, scope: Scope): void {
    for (const attr in node.attributes) {
      if (attr === "xmlns" || attr.startsWith("xmlns:")) continue;
      const colon = attr.indexOf(":");
      const ns = colon < 0 ? undefined : scope.get(attr.slice(0, colon));
      const local = colon < 0 ? attr : attr.slice(colon + 1);
      if (ns === XSI) {
        if (XSI_ALLOWED.has(local)) continue;
        if (local === "nil") {
          this.report(node, name, "The element is not 'nillable'.");
          continue;
        }
        if (local === "type") {
          // Every DGII type is anonymous or a restriction of a built-in: no xsi:type can name a
          // type validly derived from the declared one but the declared one itself, which has
          // no name to give for most elements. libxml2 refuses xsi:type="xs:string" and the like.
          this.report(
            node,
            name,
            `attribute '{${XSI}}type': The type definition is blocked or not validly derived from the type definition of the element declaration.`,
          );
          continue;
        }
      }
      const shown = ns ? `{${ns}}${local}` : attr;
      this.report(node, name, `attribute '${shown}': The attribute '${shown}' is not allowed.`);
    }
  }

  /** A node already matched to the declaration `el`. */
  element(node: XmlNode, el: ModelElement, name: string, scope: Scope): void {
    this.attributes(node, name, scope);
    if (el.shape === "leaf") this.leaf(node, el, name);
    else this.complex(node, el, name, scope);
  }

  leaf(node: XmlNode, el: ModelElement, name: string): void {
    const facets = el.facets!;
    if (facets.base === "anyType") return;
    if (node.children.length) {
      this.report(node, name, "Element content is not allowed, because the type definition is simple.");
      return;
    }
    // libxml2 refuses leading whitespace in a plain xs:dateTime (Semilla's fecha), though the
    // type's whiteSpace is collapse; trailing whitespace it strips.
    const bad =
      facets.base === "dateTime" && /^[ \t\n\r]/.test(node.text)
        ? { rule: "xsd:dateTime", message: "" }
        : checkFacets(node.text, el.simpleType!, { xsdOnly: true });
    if (!bad) return;
    const value = node.text.length > 120 ? `${node.text.slice(0, 120)}…` : node.text;
    const rule = bad.rule.replace(/^xsd:/, "");
    const message =
      rule === facets.base
        ? `'${value}' is not a valid value of the atomic type 'xs:${facets.base}'.`
        : rule === "xml:Char"
          ? `The value '${value}' ${bad.message}.`
          : `[facet '${rule}'] The value '${value}' ${bad.message}.`;
    this.report(node, name, message);
  }

  complex(node: XmlNode, el: ModelElement, name: string, scope: Scope): void {
    if (node.cdata || !BLANK.test(node.text)) {
      this.report(
        node,
        name,
        "Character content other than whitespace is not allowed because the content type is 'element-only'.",
      );
    }
    const particles = this.sequences(el);
    let at = 0;
    let count = 0;
    for (const child of node.children) {
      const entered = this.enter(child, scope);
      const childName = entered.expanded;
      // Advance to the first particle that takes this child: the current one while it has room,
      // else the next ones, passing only particles whose minimum is already met.
      let match: Particle | undefined;
      let missing: Particle | undefined;
      for (let i = at, n = count; i < particles.length; i++, n = 0) {
        const p = particles[i]!;
        const takes = p.element === undefined || (!entered.qualified && p.element.name === childName);
        if (takes && n < p.maxOccurs) {
          match = p;
          if (i !== at) count = 0;
          at = i;
          break;
        }
        if (n < p.minOccurs) {
          missing = p;
          break;
        }
      }
      if (!match) {
        this.report(
          child,
          childName,
          `This element is not expected.${misfit(particles, at, count, entered.qualified ? undefined : childName, name, missing !== undefined)}`,
        );
        // libxml2 stops judging this parent's content model at the first misfit.
        return;
      }
      count++;
      if (match.element) this.element(child, match.element, childName, entered.scope);
    }
    for (let i = at, n = count; i < particles.length; i++, n = 0) {
      if (n < particles[i]!.minOccurs) {
        this.report(node, name, `Missing child element(s). Expected is ( ${expectedNames(particles, at, count)} ).`);
        return;
      }
    }
  }
}

/**
 * Why a child fits nowhere: a required element is missing before it (libxml2 then lists what
 * was expected), or it is known but comes too often or after an element it must precede.
 */
function misfit(
  particles: readonly Particle[],
  at: number,
  count: number,
  name: string | undefined,
  parent: string,
  missing: boolean,
): string {
  if (missing) return ` Expected is ( ${expectedNames(particles, at, count)} ).`;
  const k = name === undefined ? -1 : particles.findIndex((p) => p.element?.name === name);
  const slot = particles[at];
  if (slot && !slot.element && count >= slot.maxOccurs)
    return ` The xs:any slot at the end of '${parent}' (the Signature's) is taken already.`;
  if (k < 0) return ` '${parent}' has no such child element.`;
  if (k === at) return ` It may occur at most ${particles[k]!.maxOccurs} time(s) in '${parent}'.`;
  return ` It must come before '${particles[at]!.element?.name ?? "##any"}' in '${parent}'.`;
}

/** What may come next from position (at, count): libxml2 lists these after "Expected is". */
function expectedNames(particles: readonly Particle[], at: number, count: number): string {
  const names: string[] = [];
  for (let i = at, n = count; i < particles.length; i++, n = 0) {
    const p = particles[i]!;
    if (n < p.maxOccurs) names.push(p.element?.name ?? "##any");
    if (n < p.minOccurs) break;
  }
  return names.join(", ");
}

const cache = new Map<string, (el: ModelElement) => readonly Particle[]>();

/** The sequences of `kind`'s model as particles, with the root's trailing xs:any slot. */
function sequencesOf(kind: DocumentKind, requireSignature: boolean): (el: ModelElement) => readonly Particle[] {
  const key = `${kind}:${requireSignature}`;
  let hit = cache.get(key);
  if (hit) return hit;
  const model = documentModel(kind);
  const byElement = new WeakMap<ModelElement, readonly Particle[]>();
  const slot = model.signatureSlot;
  const particlesOf = (el: ModelElement): Particle[] =>
    (el.children ?? []).map((c) => ({ element: c, minOccurs: c.minOccurs, maxOccurs: c.maxOccurs }));
  const rootParticles = particlesOf(model.root);
  if (slot) rootParticles.push({ minOccurs: requireSignature ? slot.minOccurs : 0, maxOccurs: slot.maxOccurs });
  byElement.set(model.root, rootParticles);
  hit = (el) => {
    let ps = byElement.get(el);
    if (!ps) {
      // An `array` container's children hold the repeated item with its own bounds.
      ps = particlesOf(el);
      byElement.set(el, ps);
    }
    return ps;
  };
  cache.set(key, hit);
  return hit;
}

/** Validates a parsed tree (parsed with `{ lines: true }` for line numbers) against `kind`'s XSD. */
export function validateXsdModelTree(
  tree: XmlNode,
  kind: DocumentKind,
  options: XsdModelValidateOptions = {},
): XsdValidationResult {
  const malformed = notWellFormed(tree);
  if (malformed) return { valid: false, errors: [`The document is not well-formed: ${malformed}.`] };
  const model = documentModel(kind);
  const run = new Run(sequencesOf(kind, options.requireSignature ?? true));
  const entered = run.enter(tree, new Map());
  if (entered.qualified || entered.expanded !== model.rootName) {
    run.report(tree, entered.expanded, "No matching global declaration available for the validation root.");
  } else {
    run.element(tree, model.root, entered.expanded, entered.scope);
  }
  return { valid: run.errors.length === 0, errors: run.errors };
}

/**
 * Validates `xml` against the official XSD of `kind`, as libxml2 would judge it. A document that
 * is not well-formed is invalid, with the parser's message.
 */
export function validateXsdModel(
  xml: string,
  kind: DocumentKind,
  options: XsdModelValidateOptions = {},
): XsdValidationResult {
  if (NOT_XML_CHAR.test(xml))
    return { valid: false, errors: ["The document is not well-formed: it contains a character XML does not allow."] };
  let tree: XmlNode;
  try {
    tree = parseXmlTree(xml, { lines: true });
  } catch (e) {
    if (e instanceof XmlParseError) return { valid: false, errors: [`The document is not well-formed: ${e.message}.`] };
    throw e;
  }
  return validateXsdModelTree(tree, kind, options);
}
