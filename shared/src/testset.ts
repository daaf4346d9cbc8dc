/**
 * DGII certification test sets ("Pruebas de Datos", sheets ECF and RFCE) as CSV: parsing, and one
 * row → the JSON document that mirrors DGII's XML (the request body of `POST /fe/recepcion/ecf`).
 *
 * The columns are leaf names as DGII spells them (with a few spelling variants), indexed for the
 * repeated tables: `FormaPago[2]`, `TelefonoEmisor[1]`, item fields `MontoItem[3]`, item-level
 * sub-tables `CodigoItem[3][1]`. A column is placed with the XSD model of the row's type
 * (`documentModel`): the leaf with that name and as many enclosing arrays as the column has
 * indices. Where a name still fits several leaves, the header order decides: DGII's header follows
 * the XSD order, so the first candidate at or after the previously placed column wins.
 */
import { isoDateFromDgii } from "./dgii-time.ts";
import { documentModel, type DocumentKind, type ModelElement } from "./xml/model.ts";

/** What DGII writes in a cell that has no value. */
export const EMPTY_CELL = "#e";

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF); a UTF-8 BOM is dropped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

export interface TestSetRow {
  /** `CasoPrueba`: the issuer's RNC followed by the e-NCF. */
  casoPrueba: string;
  /** Cells with a value, keyed by column position; `#e` and blank cells are left out. */
  cells: ReadonlyMap<number, string>;
}

export interface TestSet {
  /** Column names as written (trimmed). */
  header: readonly string[];
  rows: readonly TestSetRow[];
}

/** Reads a test-set CSV (either sheet). */
export function readTestSet(text: string): TestSet {
  const [head, ...body] = parseCsv(text);
  if (!head) throw new Error("empty test set");
  const header = head.map((h) => h.trim());
  const caso = header.indexOf("CasoPrueba");
  const rows = body.map((r) => {
    const cells = new Map<number, string>();
    r.forEach((raw, i) => {
      const v = raw.trim();
      if (v !== "" && v !== EMPTY_CELL && i < header.length) cells.set(i, v);
    });
    return { casoPrueba: caso >= 0 ? (r[caso] ?? "").trim() : "", cells };
  });
  return { header, rows };
}

/** The value of a named column in a row (`undefined` when empty or absent). */
export function cellOf(set: TestSet, row: TestSetRow, column: string): string | undefined {
  const i = set.header.findIndex((h) => h.toLowerCase() === column.toLowerCase());
  return i >= 0 ? row.cells.get(i) : undefined;
}

/** One step of a JSON path: an object key, or `#` for an array index (filled from the column). */
type Step = string | "#";

interface Leaf {
  /** Element name as matched against the column (lower case). */
  match: string;
  /** JSON path from the document root. */
  steps: readonly Step[];
  /** Number of `#` steps. */
  depth: number;
  /** Position in XSD (document) order. */
  order: number;
}

/**
 * Column names that differ from the element they fill. `NumeroLineaDoR` is the NumeroLinea of
 * a DescuentoORecargo (the plain `NumeroLinea[i]` is the item's); the others are misspellings
 * that differ from the XSD only in case (`ENCF`, `MontosubRecargo`) and are matched anyway.
 */
const ALIASES: Record<string, { name: string; under: string }> = {
  numerolineador: { name: "numerolinea", under: "DescuentosORecargos" },
};

/**
 * Header cells that are not elements: DGII's sheet has a marker column for the page's
 * SubtotalImpuestoAdicional group, whose two leaves have their own columns.
 */
const NOT_ELEMENTS = new Set(["subtotalimpuestoadicionalpaginatabla"]);

function leavesOf(kind: DocumentKind): Leaf[] {
  const out: Leaf[] = [];
  const walk = (el: ModelElement, steps: Step[]) => {
    for (const child of el.children ?? []) {
      if (child.shape === "leaf") {
        const own = child.repeated ? [...steps, child.name, "#"] : [...steps, child.name];
        out.push({
          match: child.name.toLowerCase(),
          steps: own,
          depth: own.filter((s) => s === "#").length,
          order: out.length,
        });
      } else if (child.shape === "array") {
        const item = child.item!;
        if (item.shape === "leaf") {
          // TablaTelefonoEmisor: ["809…", …]; the column is named after the repeated element.
          const own = [...steps, child.name, "#"];
          out.push({
            match: item.name.toLowerCase(),
            steps: own,
            depth: own.filter((s) => s === "#").length,
            order: out.length,
          });
        } else walk(item, [...steps, child.name, "#"]);
      } else walk(child, [...steps, child.name]);
    }
  };
  walk(documentModel(kind).root, []);
  return out;
}

/** Where one column goes for one document kind. */
export interface ColumnPlacement {
  column: string;
  /** `null`: no element of this kind has that name (a value there cannot be sent). */
  leaf: { steps: readonly Step[]; depth: number } | null;
  /** The column's indices (1-based), in order. */
  indices: readonly number[];
}

const COLUMN = /^(.*?)((?:\[\d+\])*)$/;

function splitColumn(column: string): { name: string; indices: number[] } {
  const m = COLUMN.exec(column.trim())!;
  const indices = [...m[2]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
  return { name: m[1]!.trim(), indices };
}

const placementCache = new Map<string, ColumnPlacement[]>();

/** Places every column of `header` in the model of `kind` (cached per header and kind). */
export function placeColumns(header: readonly string[], kind: DocumentKind): ColumnPlacement[] {
  const key = `${kind}\u0000${header.join("\u0001")}`;
  const hit = placementCache.get(key);
  if (hit) return hit;
  const leaves = leavesOf(kind);
  // One decision per column family (name + number of indices), taken at its first column, so
  // `MontoItem[7]` goes where `MontoItem[1]` went whatever came in between.
  const families = new Map<string, Leaf | null>();
  let lastOrder = -1;
  const placements = header.map((column): ColumnPlacement => {
    const { name, indices } = splitColumn(column);
    const lower = name.toLowerCase();
    const family = `${lower}/${indices.length}`;
    if (!families.has(family)) {
      let leaf: Leaf | null = null;
      if (!NOT_ELEMENTS.has(lower)) {
        const alias = ALIASES[lower];
        let named = leaves.filter(
          (l) => l.match === (alias?.name ?? lower) && (!alias || l.steps.includes(alias.under)),
        );
        // Prefer the leaf with exactly as many enclosing arrays as the column has indices; a
        // column may carry more indices than arrays (DGII numbers the page's single
        // SubtotalImpuestoAdicional group as `[i][1]`), never fewer.
        const exact = named.filter((l) => l.depth === indices.length);
        named = exact.length ? exact : named.filter((l) => l.depth < indices.length).sort((a, b) => b.depth - a.depth);
        if (!exact.length && named.length) named = named.filter((l) => l.depth === named[0]!.depth);
        leaf = named.find((l) => l.order > lastOrder) ?? named[0] ?? null;
      }
      families.set(family, leaf);
      if (leaf) lastOrder = leaf.order;
    }
    const leaf = families.get(family)!;
    return { column, leaf: leaf ? { steps: leaf.steps, depth: leaf.depth } : null, indices };
  });
  placementCache.set(key, placements);
  return placements;
}

export interface MappedRow {
  kind: DocumentKind;
  /** The request body: the content of the root element, every leaf a string as in the sheet. */
  document: Record<string, unknown>;
  /** Columns with a value that this kind has no element for, or with an impossible index. */
  unplaced: { column: string; value: string; reason: string }[];
}

type Container = Record<string, unknown> | unknown[];

function setAt(
  doc: Record<string, unknown>,
  steps: readonly Step[],
  indices: readonly number[],
  value: string,
): string | null {
  let cur: Container = doc;
  let k = 0;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    const last = s === steps.length - 1;
    const nextIsIndex = steps[s + 1] === "#";
    let slot: string | number;
    if (step === "#") {
      const i = indices[k++]!;
      if (!(i >= 1)) return `index ${i} is not 1 or more`;
      slot = i - 1;
    } else slot = step;
    const holder = cur as Record<string | number, unknown>;
    if (last) {
      if (holder[slot] !== undefined) return "two columns fill the same element";
      holder[slot] = value;
      return null;
    }
    holder[slot] ??= nextIsIndex ? [] : {};
    cur = holder[slot] as Container;
  }
  // Extra indices (more than the leaf's arrays) must be 1: there is only one occurrence.
  return null;
}

/** Drops the holes left by empty repeated groups (`FormaPago[1]` empty, `[2]` filled). */
function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = compact(x);
    return out;
  }
  return v;
}

/**
 * The JSON document for one row. `kind` defaults to the row's `TipoeCF` (ECF sheet); pass
 * `"RFCE"` for the RFCE sheet.
 */
export function mapTestSetRow(set: TestSet, row: TestSetRow, kind?: DocumentKind): MappedRow {
  const k = kind ?? (cellOf(set, row, "TipoeCF") as DocumentKind | undefined);
  if (!k) throw new Error(`${row.casoPrueba}: no TipoeCF`);
  const placements = placeColumns(set.header, k);
  const document: Record<string, unknown> = {};
  const unplaced: MappedRow["unplaced"] = [];
  for (const [i, value] of [...row.cells.entries()].sort((a, b) => a[0] - b[0])) {
    const p = placements[i]!;
    if (p.column === "CasoPrueba") continue;
    if (!p.leaf) {
      unplaced.push({ column: p.column, value, reason: `no element ${splitColumn(p.column).name} in ${k}` });
      continue;
    }
    if (p.indices.length < p.leaf.depth) {
      unplaced.push({ column: p.column, value, reason: "too few indices" });
      continue;
    }
    if (p.indices.slice(p.leaf.depth).some((x) => x !== 1)) {
      unplaced.push({ column: p.column, value, reason: "the element occurs once: extra index must be 1" });
      continue;
    }
    const bad = setAt(document, p.leaf.steps, p.indices, value);
    if (bad) unplaced.push({ column: p.column, value, reason: bad });
  }
  return { kind: k, document: compact(document) as Record<string, unknown>, unplaced };
}

/** `dd-MM-yyyy` → `yyyy-MM-dd`; throws when a cell is not written dd-MM-yyyy. */
export function isoFromDgiiDate(d: string): string {
  if (!/^\d{2}-\d{2}-\d{4}$/.test(d)) throw new Error(`not a dd-MM-yyyy date: ${d}`);
  return isoDateFromDgii(d);
}
