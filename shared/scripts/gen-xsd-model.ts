/**
 * Generates the document model and the libxml2-ready XSD texts from DGII's official schemas.
 *
 *   npx tsx shared/scripts/gen-xsd-model.ts [xsd-dir] [out-dir]
 *
 * Reads the 15 XSDs (default: the kit's xsd/ folder, see shared/test/support/kit.ts; never modified) and writes
 *   shared/src/generated/xsd-model.ts   element trees + simple-type facets per document kind
 *   shared/src/generated/xsd-sources.ts the schema texts, minified and patched for libxml2
 * Patches are found by compiling each schema with xmllint-wasm: a schema that fails gets the
 * known rewrites applied in memory and must then compile, or the script fails.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { validateXML } from "xmllint-wasm";
import { DGII_KIT } from "../test/support/kit.ts";

const XS = "http://www.w3.org/2001/XMLSchema";
const here = dirname(fileURLToPath(import.meta.url));
const xsdDir = process.argv[2] ?? `${DGII_KIT}/xsd`;
// A different out-dir lets a test regenerate and compare with the committed files.
const outDir = resolve(process.argv[3] ?? resolve(here, "../src/generated"));

/** File name → document kind. */
const FILES: Record<string, string> = {
  "e-CF 31 v.1.0.xsd": "31",
  "e-CF 32 v.1.0.xsd": "32",
  "e-CF 33 v.1.0.xsd": "33",
  "e-CF 34 v.1.0.xsd": "34",
  "e-CF 41 v.1.0.xsd": "41",
  "e-CF 43 v.1.0.xsd": "43",
  "e-CF 44 v.1.0.xsd": "44",
  "e-CF 45 v.1.0.xsd": "45",
  "e-CF 46 v.1.0.xsd": "46",
  "e-CF 47 v.1.0.xsd": "47",
  "RFCE 32 v.1.0.xsd": "RFCE",
  "ARECF v1.0.xsd": "ARECF",
  "ACECF v.1.0.xsd": "ACECF",
  "ANECF v.1.0.xsd": "ANECF",
  "Semilla v.1.0.xsd": "Semilla",
};

/** Rewrites for constructs libxml2 rejects; applied only to schemas that fail to compile. */
const PATCHES: { name: string; apply: (s: string) => string }[] = [
  // .NET non-capturing group: not XSD 1.0 regex syntax; a plain group means the same here.
  { name: "regex (?: → (", apply: (s) => s.replaceAll("(?:", "(") },
  // `$` inside a class is a .NET leftover (`[$0-9]` meant `[0-9]`), libxml2 refuses it.
  { name: "regex [$0-9] → [0-9]", apply: (s) => s.replaceAll("[$0-9]", "[0-9]") },
  // A type name with a leading space cannot be referenced; trim it.
  { name: "type name leading space", apply: (s) => s.replace(/name="\s+([^"]+)"/g, 'name="$1"') },
];

// ---------------------------------------------------------------------------------------------
// Model extraction

interface Facets {
  base: string;
  length?: number;
  minLength?: number;
  maxLength?: number;
  patterns?: string[];
  enumeration?: string[];
  totalDigits?: number;
  fractionDigits?: number;
  minInclusive?: string;
  maxInclusive?: string;
  minExclusive?: string;
  maxExclusive?: string;
}
/** Raw node: [name, minOccurs, maxOccurs (-1 = unbounded), type index | children]. `*` = xs:any. */
type RawNode = [string, number, number, number | RawNode[]] | [string, number, number];

const typeTable: Facets[] = [];
const typeIndex = new Map<string, number>();

function internType(f: Facets): number {
  const key = JSON.stringify(f);
  let i = typeIndex.get(key);
  if (i === undefined) {
    i = typeTable.length;
    typeTable.push(f);
    typeIndex.set(key, i);
  }
  return i;
}

function xsChildren(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) {
      const e = n as Element;
      if (e.namespaceURI !== XS) throw new Error(`unexpected element ${e.tagName}`);
      if (e.localName !== "annotation") out.push(e);
    }
  }
  return out;
}

function occurs(el: Element, attr: string): number {
  const v = el.getAttribute(attr);
  if (v === null || v.trim() === "") return 1;
  if (v.trim() === "unbounded") return -1;
  return Number(v.trim());
}

function buildModel(xml: string, file: string): { root: string; tree: RawNode[] } {
  const doc = new DOMParser().parseFromString(xml, "text/xml");
  const schema = doc.documentElement;
  if (!schema) throw new Error(`${file}: no schema`);
  const simpleTypes = new Map<string, Element>();
  const roots: Element[] = [];
  for (const c of xsChildren(schema)) {
    if (c.localName === "simpleType") simpleTypes.set(c.getAttribute("name")!.trim(), c);
    else if (c.localName === "element") roots.push(c);
    else throw new Error(`${file}: unsupported top-level xs:${c.localName}`);
  }
  if (roots.length !== 1) throw new Error(`${file}: expected one root element`);
  // Unqualified names throughout: the validator wants no namespace on any declared element.
  for (const attr of ["targetNamespace", "elementFormDefault"]) {
    if (schema.hasAttribute(attr) && !(attr === "elementFormDefault" && schema.getAttribute(attr) === "unqualified")) {
      throw new Error(`${file}: ${attr} is not supported`);
    }
  }

  const resolveType = (name: string, seen: string[] = []): Facets => {
    const local = name.replace(/^xs:/, "");
    if (name.startsWith("xs:")) return { base: local };
    const st = simpleTypes.get(name.trim());
    if (!st) throw new Error(`${file}: unknown type ${name}`);
    if (seen.includes(name)) throw new Error(`${file}: type cycle at ${name}`);
    return facetsOf(st, [...seen, name]);
  };

  const facetsOf = (st: Element, seen: string[]): Facets => {
    const kids = xsChildren(st);
    const r = kids[0];
    if (kids.length !== 1 || !r || r.localName !== "restriction") {
      throw new Error(`${file}: only xs:restriction simple types are supported`);
    }
    const base = r.getAttribute("base") ?? "";
    // DGII derives every simple type straight from a built-in; chained restrictions would need
    // per-step pattern sets (OR within a step, AND across steps), so refuse them.
    if (!base.startsWith("xs:")) throw new Error(`${file}: restriction of ${base} is not supported`);
    const f: Facets = resolveType(base, seen);
    for (const facet of xsChildren(r)) {
      const v = facet.getAttribute("value") ?? "";
      switch (facet.localName) {
        case "enumeration":
          f.enumeration = [...(f.enumeration ?? []), v];
          break;
        case "pattern":
          // Several patterns in one step are alternatives (XSD 1.0).
          f.patterns = [...(f.patterns ?? []), v];
          break;
        case "length":
        case "minLength":
        case "maxLength":
        case "totalDigits":
        case "fractionDigits":
          f[facet.localName] = Number(v);
          break;
        case "minInclusive":
        case "maxInclusive":
        case "minExclusive":
        case "maxExclusive":
          f[facet.localName] = v;
          break;
        default:
          throw new Error(`${file}: unsupported facet xs:${facet.localName}`);
      }
    }
    if (f.enumeration) f.enumeration = [...new Set(f.enumeration)];
    return f;
  };

  const elementNode = (el: Element): RawNode => {
    const name = el.getAttribute("name");
    if (!name) throw new Error(`${file}: element refs are not supported`);
    // The model validator (src/xml/xsd-model-validate.ts) knows no nillable, fixed or default
    // values, nor qualified local elements: none exist in DGII's schemas; fail loudly if one appears.
    for (const attr of ["nillable", "fixed", "default", "form", "substitutionGroup", "abstract", "block"]) {
      if (el.hasAttribute(attr)) throw new Error(`${file}: ${attr} on element ${name} is not supported`);
    }
    const min = occurs(el, "minOccurs");
    const max = occurs(el, "maxOccurs");
    const type = el.getAttribute("type");
    if (type) return [name, min, max, internType(resolveType(type))];
    const kids = xsChildren(el);
    const ct = kids[0];
    if (!ct) return [name, min, max, internType({ base: "anyType" })];
    if (ct.localName === "simpleType") return [name, min, max, internType(facetsOf(ct, []))];
    if (ct.localName !== "complexType") throw new Error(`${file}: unsupported xs:${ct.localName}`);
    return [name, min, max, particles(ct)];
  };

  const particles = (ct: Element): RawNode[] => {
    const kids = xsChildren(ct);
    const seq = kids[0];
    if (kids.length !== 1 || !seq || seq.localName !== "sequence") {
      // No xs:choice, xs:all, groups or attributes exist in DGII's schemas: fail loudly if one appears.
      throw new Error(`${file}: only anonymous complex types with one xs:sequence are supported`);
    }
    if (seq.hasAttribute("minOccurs") || seq.hasAttribute("maxOccurs")) {
      throw new Error(`${file}: occurrence constraints on xs:sequence are not supported`);
    }
    return xsChildren(seq).map((p) => {
      if (p.localName === "element") return elementNode(p);
      if (p.localName === "any") {
        // The validator takes any element in the slot and looks at nothing inside it.
        if (
          (p.getAttribute("processContents") ?? "skip") !== "skip" ||
          (p.getAttribute("namespace") || "##any") !== "##any"
        ) {
          throw new Error(`${file}: only xs:any processContents="skip" in any namespace is supported`);
        }
        return ["*", occurs(p, "minOccurs"), occurs(p, "maxOccurs")];
      }
      throw new Error(`${file}: unsupported particle xs:${p.localName}`);
    });
  };

  const root = roots[0]!;
  const node = elementNode(root);
  if (!Array.isArray(node[3])) throw new Error(`${file}: root has no content model`);
  return { root: node[0], tree: node[3] };
}

// ---------------------------------------------------------------------------------------------
// libxml2 compilation

async function compileErrors(xsd: string): Promise<string | null> {
  // Any document will do: a schema that compiles reports a validity error, one that does not
  // makes xmllint exit with a "failed to compile" message.
  try {
    const r = await validateXML({
      xml: { fileName: "probe.xml", contents: "<probe/>" },
      schema: { fileName: "schema.xsd", contents: xsd },
    });
    return /failed to compile/.test(r.rawOutput) ? r.rawOutput : null;
  } catch (e) {
    return String((e as Error).message);
  }
}

/** Minified schema: no comments, no whitespace between tags, LF, no BOM. Same meaning. */
function minify(xsd: string): string {
  return xsd
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/>\s+</g, "><")
    .replace(/\s+\/>/g, "/>")
    .trim();
}

async function main(): Promise<void> {
  const present = readdirSync(xsdDir)
    .filter((f) => f.endsWith(".xsd"))
    .sort();
  const missing = Object.keys(FILES).filter((f) => !present.includes(f));
  if (missing.length) throw new Error(`missing XSDs: ${missing.join(", ")}`);

  const models: Record<string, { root: string; tree: RawNode[] }> = {};
  const sources: Record<string, string> = {};
  const notes: string[] = [];
  for (const [file, kind] of Object.entries(FILES)) {
    const bytes = readFileSync(join(xsdDir, file));
    const sha = createHash("sha256").update(bytes).digest("hex");
    const original = bytes.toString("utf8").replace(/^\uFEFF/, "");
    let text = minify(original);
    const applied: string[] = [];
    const firstError = await compileErrors(text);
    if (firstError) {
      for (const p of PATCHES) {
        const next = p.apply(text);
        if (next !== text) {
          text = next;
          applied.push(p.name);
        }
      }
      const after = await compileErrors(text);
      if (after) throw new Error(`${file} still fails to compile after patches:\n${after}`);
    }
    notes.push(` * ${kind.padEnd(7)} ${file} sha256:${sha}${applied.length ? ` patched: ${applied.join("; ")}` : ""}`);
    // The model is read from the patched text so that type names resolve as libxml2 sees them.
    models[kind] = buildModel(text, file);
    sources[kind] = text;
    console.log(`${kind}: ${file}${applied.length ? ` (patched: ${applied.join("; ")})` : ""}`);
  }

  mkdirSync(outDir, { recursive: true });
  const header = (what: string) =>
    `// GENERATED by shared/scripts/gen-xsd-model.ts from DGII's official XSDs. Do not edit.\n` +
    `// ${what}\n/*\n${notes.join("\n")}\n */\n`;

  const modelTs =
    header("Element trees in sequence order and simple-type facets, per document kind.") +
    `import type { RawFacets, RawNode } from "../xml/model-types.ts";\n\n` +
    `/** Simple types, deduplicated across all schemas; nodes refer to them by index. */\n` +
    `export const XSD_TYPES: readonly RawFacets[] = [\n${typeTable.map((t) => "  " + JSON.stringify(t)).join(",\n")},\n];\n\n` +
    `/** Per kind: root element name and its children as [name, minOccurs, maxOccurs (-1 unbounded), type index | children]; "*" is xs:any. */\n` +
    `export const XSD_TREES: Readonly<Record<string, { root: string; tree: readonly RawNode[] }>> = {\n` +
    Object.entries(models)
      .map(([k, m]) => `  ${JSON.stringify(k)}: { root: ${JSON.stringify(m.root)}, tree: ${JSON.stringify(m.tree)} },`)
      .join("\n") +
    `\n};\n`;
  writeFileSync(join(outDir, "xsd-model.ts"), modelTs);

  // The e-CF schemas repeat the same simple types (units, currencies, municipalities...): store
  // each distinct xs:simpleType once and each schema as head + block indices + tail.
  const blocks: string[] = [];
  const blockIndex = new Map<string, number>();
  const layouts: Record<string, [string, number[], string]> = {};
  for (const [kind, text] of Object.entries(sources)) {
    const first = text.indexOf("<xs:simpleType");
    const end = text.lastIndexOf("</xs:schema>");
    const head = first < 0 ? text.slice(0, end) : text.slice(0, first);
    const body = first < 0 ? "" : text.slice(first, end);
    const parts = body.match(/<xs:simpleType\b[\s\S]*?<\/xs:simpleType>/g) ?? [];
    if (parts.join("") !== body) throw new Error(`${kind}: unexpected content between simple types`);
    const ids = parts.map((b) => {
      let i = blockIndex.get(b);
      if (i === undefined) {
        i = blocks.length;
        blocks.push(b);
        blockIndex.set(b, i);
      }
      return i;
    });
    layouts[kind] = [head, ids, text.slice(end)];
    if (head + ids.map((i) => blocks[i]).join("") + text.slice(end) !== text)
      throw new Error(`${kind}: layout mismatch`);
  }
  const sourcesTs =
    header("Schema texts minified (comments and inter-tag whitespace removed) and patched for libxml2.") +
    `/** Distinct xs:simpleType definitions shared by the schemas. */\n` +
    `export const XSD_SIMPLE_TYPE_BLOCKS: readonly string[] = [\n${blocks.map((b) => "  " + JSON.stringify(b)).join(",\n")},\n];\n\n` +
    `/** Per kind: [text before the simple types, block indices, closing text]. */\n` +
    `export const XSD_LAYOUTS: Readonly<Record<string, readonly [string, readonly number[], string]>> = {\n` +
    Object.entries(layouts)
      .map(([k, l]) => `  ${JSON.stringify(k)}: ${JSON.stringify(l)},`)
      .join("\n") +
    `\n};\n`;
  writeFileSync(join(outDir, "xsd-sources.ts"), sourcesTs);
  console.log(`wrote ${typeTable.length} types; model ${modelTs.length} B, sources ${sourcesTs.length} B`);
}

await main();
