// Generates shared/src/generated/obligations.ts: the obligation code (0 prohibited, 1 required,
// 2 conditional, 3 optional) of every e-CF field for each of the ten types, read from DGII's
// "Formato Comprobante Fiscal Electrónico (e-CF)" (the text extraction formato-ecf.txt in the kit).
//   npx tsx shared/scripts/gen-obligations.ts [formato-ecf.txt] [xsdDir]
//
// The text is a PDF layout dump: each field is a block of wrapped columns where one line ends with
// the ten codes (sometimes with a footnote number glued on: "25" is code 2, footnote 5) and a nearby
// line holds the XML tag (sometimes split over two lines). The XSDs give the element tree, so a tag
// found in the text is placed at its full path by walking the XSD paths in document order.
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DGII_KIT } from "../test/support/kit.ts";

const here = dirname(fileURLToPath(import.meta.url));
const docFile = process.argv[2] ?? `${DGII_KIT}/docs/formato-ecf.txt`;
const xsdDir = process.argv[3] ?? `${DGII_KIT}/xsd`;
const outFile = process.env.ECF_GEN_OUT ?? join(here, "..", "src", "generated", "obligations.ts");
const TYPES = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"] as const;
type Tipo = (typeof TYPES)[number];

// ---------- XSD element paths, in document order, per type ----------
interface XsdElement {
  path: string;
  name: string;
  minOccurs: number;
  maxOccurs: number;
  leaf: boolean;
}
function xsdElements(file: string): XsdElement[] {
  const text = readFileSync(file, "utf8");
  const out: XsdElement[] = [];
  const stack: string[] = [];
  const tag = /<(\/?)xs:element\b([^>]*?)(\/?)>/g;
  for (const m of text.matchAll(tag)) {
    const [, closing, attrs = "", selfClosing] = m;
    if (closing) {
      stack.pop();
      continue;
    }
    const name = /name="([^"]+)"/.exec(attrs)?.[1] ?? "";
    const min = Number(/minOccurs="([^"]+)"/.exec(attrs)?.[1] ?? "1");
    const maxText = /maxOccurs="([^"]+)"/.exec(attrs)?.[1] ?? "1";
    const path = [...stack, name].join("/");
    out.push({
      path,
      name,
      minOccurs: min,
      maxOccurs: maxText === "unbounded" ? Infinity : Number(maxText),
      leaf: !!selfClosing || /type="/.test(attrs),
    });
    if (!selfClosing) stack.push(name);
  }
  // Drop the root (ECF) from the paths: the JSON document starts at its children.
  return out.filter((e) => e.path !== "ECF").map((e) => ({ ...e, path: e.path.replace(/^ECF\//, "") }));
}

const xsdFiles = readdirSync(xsdDir);
const perType = new Map<Tipo, Map<string, XsdElement>>();
const order: string[] = [];
for (const t of TYPES) {
  const file = xsdFiles.find((f) => f.startsWith(`e-CF ${t} `));
  if (!file) throw new Error(`no XSD for type ${t}`);
  const elements = xsdElements(join(xsdDir, file));
  perType.set(t, new Map(elements.map((e) => [e.path, e])));
  // Merge into one order: a path new to this type goes right after its predecessor.
  let prev = -1;
  for (const e of elements) {
    const at = order.indexOf(e.path);
    if (at >= 0) prev = at;
    else order.splice(++prev, 0, e.path);
  }
}
const allNames = new Set(order.map((p) => p.split("/").pop() ?? ""));

// ---------- the document: code lines and tags ----------
const lines = readFileSync(docFile, "utf8").split(/\r?\n/);
const start = lines.findIndex((l) => /^\s*A\. ENCABEZADO\s*$/.test(l));
const end = lines.findIndex((l) => /^\s*G\. FECHA Y HORA DE LA FIRMA DIGITAL/.test(l));
if (start < 0 || end < 0) throw new Error("section markers not found");

interface CodeLine {
  line: number;
  codes: Record<Tipo, number>;
}
const codeLines: CodeLine[] = [];
for (let i = start; i < end; i++) {
  const tokens = (lines[i] ?? "").trim().split(/\s+/);
  const last = tokens.slice(-10);
  if (last.length === 10 && last.every((t) => /^[0-3]\d{0,2}$/.test(t))) {
    const codes = {} as Record<Tipo, number>;
    TYPES.forEach((t, k) => (codes[t] = Number(last[k]![0])));
    codeLines.push({ line: i, codes });
  }
}

interface TagHit {
  line: number;
  name: string;
}
function resolveName(fragment: string, nextLines: string[]): string | undefined {
  if (allNames.has(fragment)) return fragment;
  for (const next of nextLines) {
    const m = /^\s*([A-Za-z]+)>/.exec(next);
    if (m && allNames.has(fragment + m[1])) return fragment + m[1];
  }
  const candidates = [...allNames].filter((n) => n.startsWith(fragment));
  return candidates.length === 1 ? candidates[0] : undefined;
}
const tags: TagHit[] = [];
for (let i = start; i < end; i++) {
  for (const m of (lines[i] ?? "").matchAll(/<\s*([A-Za-z][A-Za-z0-9]*)/g)) {
    const name = resolveName(m[1] ?? "", lines.slice(i + 1, i + 4));
    if (name) tags.push({ line: i, name });
  }
}

// Pair each tag with the closest code line, one to one, nearest pairs first.
const MAX_DISTANCE = 12;
const pairs: { tag: number; code: number; d: number }[] = [];
tags.forEach((t, ti) =>
  codeLines.forEach((c, ci) => {
    const d = Math.abs(t.line - c.line);
    if (d <= MAX_DISTANCE) pairs.push({ tag: ti, code: ci, d });
  }),
);
pairs.sort((a, b) => a.d - b.d || a.tag - b.tag);
const tagToCode = new Map<number, number>();
const usedCodes = new Set<number>();
for (const p of pairs) {
  if (tagToCode.has(p.tag) || usedCodes.has(p.code)) continue;
  tagToCode.set(p.tag, p.code);
  usedCodes.add(p.code);
}

// Walk the tags in document order and place each at the next XSD path with that name.
const result = new Map<string, Record<Tipo, number>>();
let cursor = 0;
const unplaced: string[] = [];
tags.forEach((t, ti) => {
  const ci = tagToCode.get(ti);
  let at = order.findIndex((p, k) => k >= cursor && p.split("/").pop() === t.name);
  if (at < 0) at = order.findIndex((p) => p.split("/").pop() === t.name);
  if (at < 0 || ci === undefined) {
    unplaced.push(`${t.name}@${t.line + 1}`);
    return;
  }
  cursor = at + 1;
  const path = order[at]!;
  if (!result.has(path)) result.set(path, codeLines[ci]!.codes);
});

// Paths the text has no row for (XML wrappers such as FormaDePago, Item, or rows the layout
// mangled): take the code from the XSDs (absent → 0, minOccurs 1 under present parents → 1,
// otherwise the parent's code, which for a repeated wrapper is what the text's table row says).
const fromXsd: string[] = [];
for (const path of order) {
  if (result.has(path)) continue;
  const parent = path.split("/").slice(0, -1).join("/");
  const codes = {} as Record<Tipo, number>;
  for (const t of TYPES) {
    const e = perType.get(t)!.get(path);
    const parentCode = parent ? (result.get(parent)?.[t] ?? 1) : 1;
    codes[t] = !e ? 0 : e.minOccurs >= 1 ? parentCode : Math.min(parentCode === 1 ? 3 : parentCode, 3);
    if (e && e.minOccurs >= 1 && parentCode === 1) codes[t] = 1;
  }
  result.set(path, codes);
  fromXsd.push(path);
}

// Cross-check against the XSDs: a field an XSD leaves out must be 0 in the text, and the reverse.
const conflicts: string[] = [];
for (const path of order) {
  const codes = result.get(path)!;
  for (const t of TYPES) {
    const inXsd = perType.get(t)!.has(path);
    if (!inXsd && codes[t] !== 0) {
      conflicts.push(`${path} ${t}: text ${codes[t]} but not in XSD → 0`);
      codes[t] = 0;
    }
  }
}

// A container the text marks 0 for a type whose XSD still holds one of its children (E47's
// Transporte keeps PaisDestino) is as optional as that child.
for (const path of [...order].reverse()) {
  const codes = result.get(path)!;
  const children = order.filter((p) => p.startsWith(path + "/") && !p.slice(path.length + 1).includes("/"));
  for (const t of TYPES) {
    const childCodes = children.map((c) => result.get(c)![t]).filter((c) => c !== 0);
    if (codes[t] === 0 && childCodes.length > 0) {
      codes[t] = childCodes.every((c) => c === 3) ? 3 : 2;
      conflicts.push(`${path} ${t}: text 0 but children present → ${codes[t]}`);
    }
  }
}

const out: string[] = [];
out.push(
  "// GENERATED by shared/scripts/gen-obligations.ts from DGII's formato-ecf (v1.0, Oct 2025) and the e-CF XSDs.",
);
out.push("// Do not edit by hand. Codes: 0 prohibited, 1 required, 2 conditional, 3 optional.");
out.push("");
out.push("/** Per field (XML path below the root, containers included), its code for each e-CF type. */");
out.push("export const OBLIGATIONS = {");
for (const path of order) {
  const c = result.get(path)!;
  const src = fromXsd.includes(path) ? " // from the XSD structure" : "";
  out.push(`  ${JSON.stringify(path)}: [${TYPES.map((t) => c[t]).join(", ")}],${src}`);
}
out.push(
  "} as const satisfies Record<string, readonly [number, number, number, number, number, number, number, number, number, number]>;",
);
out.push("");
out.push("/** Column order of each row above. */");
out.push(`export const OBLIGATION_TYPES = ${JSON.stringify(TYPES)} as const;`);
out.push("");
out.push("/** Paths whose XSD allows more than one occurrence (JSON arrays), per the XSD of any type. */");
const repeated = order.filter((p) => TYPES.some((t) => (perType.get(t)!.get(p)?.maxOccurs ?? 1) > 1));
out.push(`export const REPEATED_PATHS = ${JSON.stringify(repeated, null, 2)} as const;`);
out.push("");
out.push("/**");
out.push(" * Containers whose only child repeats: in the JSON document they are arrays of that child");
out.push(' * (`DetallesItems: [item, ...]`, `TablaTelefonoEmisor: ["809..."]`).');
out.push(" */");
const arrays: Record<string, string> = {};
for (const path of order) {
  const children = order.filter((p) => p.startsWith(path + "/") && !p.slice(path.length + 1).includes("/"));
  if (children.length === 1 && repeated.includes(children[0]!)) arrays[path] = children[0]!.split("/").pop()!;
}
out.push(`export const ARRAY_CONTAINERS = ${JSON.stringify(arrays, null, 2)} as const;`);
out.push("");
out.push("/** Leaf paths (elements with a simple type). */");
const leaves = order.filter((p) => TYPES.some((t) => perType.get(t)!.get(p)?.leaf));
out.push(`export const LEAF_PATHS = ${JSON.stringify(leaves, null, 2)} as const;`);
out.push("");

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, out.join("\n"));
console.log(
  `wrote ${outFile}: ${order.length} paths, ${order.length - fromXsd.length} from the text, ${fromXsd.length} from the XSD`,
);
if (process.env.VERBOSE) {
  console.log("from XSD:", fromXsd.join(", "));
  console.log("unplaced tags:", unplaced.join(", "));
  console.log("conflicts:\n" + conflicts.join("\n"));
}
