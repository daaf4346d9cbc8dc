// Test support: third-party and DGII sample e-CFs turned into this package's JSON shape.
import { readFileSync, readdirSync } from "node:fs";
import { ARRAY_CONTAINERS } from "../../src/obligations.ts";

const KIT = `${DGII_KIT}/testsets`;
const arrays = ARRAY_CONTAINERS as Record<string, string>;

/** XML-shaped JSON (`{DetallesItems: {Item: [...]}}`) → ours (`{DetallesItems: [...]}`). */
export function fromXmlShaped(node: unknown, path = ""): unknown {
  if (Array.isArray(node)) return node.map((n) => fromXmlShaped(n, path));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const p = path ? `${path}/${key}` : key;
    const child = arrays[p];
    if (child !== undefined) {
      const inner =
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? (value as Record<string, unknown>)[child]
          : value;
      const list = inner === undefined ? [] : Array.isArray(inner) ? inner : [inner];
      out[key] = list.map((v) => fromXmlShaped(v, `${p}/${child}`));
    } else out[key] = fromXmlShaped(value, p);
  }
  return out;
}

/** The 24 ithesk/odoo_dgii_ecf test-set cases (RNC 130939616), in our JSON shape. */
export function itheskCases(): { name: string; doc: Record<string, unknown> }[] {
  const dir = `${KIT}/ithesk_odoo_dgii_ecf__exmpjson`;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const raw = JSON.parse(readFileSync(`${dir}/${f}`, "utf8")) as { ECF: unknown };
      return { name: f, doc: fromXmlShaped(raw.ECF) as Record<string, unknown> };
    });
}

// ---------------------------------------------------------------------------------------------
// DGII's "Pruebas de Datos" workbooks (sheet ECF, one flat row per e-CF; `#e` = empty cell).

import { FIELD_PATHS, isLeafPath } from "../../src/obligations.ts";
import { DGII_KIT } from "./kit.ts";

/** Columns whose workbook name differs from the XML element name. */
const RENAMED: Record<string, string> = {
  ENCF: "eNCF",
  MontosubRecargo: "MontoSubRecargo",
  NumeroLineaDoR: "NumeroLinea",
};

function repeatedDepth(path: string): number {
  const segs = path.split("/");
  let n = 0;
  for (let i = 1; i < segs.length; i++) if (arrays[segs.slice(0, i).join("/")] === segs[i]) n++;
  return n;
}

function pathForColumn(column: string): { path: string; indexes: number[] } | undefined {
  const m = /^([A-Za-z0-9]+)((?:\[\d+\])*)$/.exec(column.trim());
  if (!m) return undefined;
  const raw = m[1]!;
  const indexes = [...m[2]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]) - 1);
  const name = RENAMED[raw] ?? raw;
  const candidates = FIELD_PATHS.filter(
    (p) => isLeafPath(p) && p.split("/").pop() === name && repeatedDepth(p) === indexes.length,
  );
  const preferred =
    raw === "NumeroLineaDoR"
      ? candidates.find((p) => p.startsWith("DescuentosORecargos"))
      : candidates.find((p) => !p.startsWith("Paginacion") && !p.startsWith("Subtotales"));
  return preferred ? { path: preferred, indexes } : undefined;
}

function setAt(doc: Record<string, unknown>, path: string, indexes: number[], value: string): void {
  const segs = path.split("/");
  let node: any = doc;
  let k = 0;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    const prefix = segs.slice(0, i).join("/");
    if (i > 0 && arrays[prefix] === seg) {
      const idx = indexes[k++]!;
      if (last) node[idx] = value;
      else node = node[idx] ??= {};
      continue;
    }
    const nextIsArray = !last && arrays[segs.slice(0, i + 1).join("/")] === segs[i + 1];
    if (last) node[seg] = value;
    else node = node[seg] ??= nextIsArray ? [] : {};
  }
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(cell), (cell = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell), rows.push(row), (row = []), (cell = "");
    } else cell += c;
  }
  if (cell !== "" || row.length) row.push(cell), rows.push(row);
  return rows.filter((r) => r.some((x) => x !== ""));
}

/** Every ECF row of the three DGII test-set workbooks in the kit, as JSON documents. */
export function dgiiTestSetCases(): { name: string; doc: Record<string, unknown> }[] {
  const files = readdirSync(KIT)
    .filter((f) => f.endsWith("__ECF.csv"))
    .sort();
  const out: { name: string; doc: Record<string, unknown> }[] = [];
  for (const file of files) {
    const [header = [], ...rows] = parseCsv(readFileSync(`${KIT}/${file}`, "utf8").replace(/^\uFEFF/, ""));
    const columns = header.map(pathForColumn);
    for (const row of rows) {
      const doc: Record<string, unknown> = {};
      row.forEach((cell, i) => {
        const target = columns[i];
        if (!target || cell === "#e" || cell === "") return;
        setAt(doc, target.path, target.indexes, cell);
      });
      // Sparse arrays (a workbook may leave an index empty) become dense.
      const compact = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.filter((x) => x !== undefined).map(compact)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, compact(x)]))
            : v;
      const name = `${file.split("__")[0]} ${row[0]}`;
      out.push({ name, doc: compact(doc) as Record<string, unknown> });
    }
  }
  return out;
}
