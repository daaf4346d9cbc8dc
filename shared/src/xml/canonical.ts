/**
 * Canonical form: the completed document that flows inside the system, every leaf a string
 * exactly as it is written in XML.
 *
 * Decimal places (formato-ecf "Valor numérico de 16 enteros, 2 decimales" and the XSD facets):
 * - fractionDigits 2 (amounts, quantities `CantidadItem`, rates, percentages): exactly 2 places,
 *   "200" → "200.00", "97.2" → "97.20". DGII's own samples write both; 2 places is what the
 *   format document prescribes and what the RFCE/ACECF schemas require (`[0-9]+(\.[0-9]{2})`).
 * - fractionDigits 3 or 4 (`Subcantidad`, `PesoNeto*`: up to 3; `PrecioUnitarioItem`,
 *   `PrecioOtraMoneda`, `TipoCambio`: up to 4): at least 2 places, the given ones kept up to the
 *   maximum, so a unit price keeps the precision it was priced with ("12.3456").
 * - Never rounded: more places than allowed is reported (`invalid_format`) and the text kept,
 *   because rounding a price silently changes the invoice.
 * Integers lose a `+` and leading zeros; a numeric enumeration takes the enumeration's own
 * spelling (`TipoPago` "01" → "1", `Version` 1 → "1.0"). Text is kept byte for byte. Empty
 * strings, null and containers left empty are dropped; unknown keys are kept for the structure
 * check to report.
 */
import { jsonMappingRule, trailPointer, trailTo, type Problem, type Trail } from "../problems.ts";
import {
  enumerationSpelling,
  parseXsdDecimal,
  scanPlainNumber,
  type DecimalParts,
  type PlainNumber,
  type SimpleType,
} from "./facets.ts";
import { documentModel, type DocumentKind, type ModelElement } from "./model.ts";

type Path = Trail | null;

export interface CanonicalizeResult<T = Record<string, unknown>> {
  document: T;
  problems: Problem[];
}

function formatProblem(path: Path, el: ModelElement, value: string, en: string, es: string, rule: string): Problem {
  return {
    path: trailPointer(path),
    code: "invalid_format",
    message: `${el.name} ${en}`,
    messageEs: `${el.name} ${es}`,
    severity: "error",
    rule: `${rule} (${el.name})`,
    details: { value },
  };
}

function numericText(p: DecimalParts, minFrac: number): string {
  const frac = p.frac.length < minFrac ? p.frac.padEnd(minFrac, "0") : p.frac;
  return (p.negative ? "-" : "") + (p.int === "" ? "0" : p.int) + (frac ? "." + frac : "");
}

/** A leaf at `token` under `up`: its trail is made only for a problem (most leaves have none). */
function canonicalLeaf(v: unknown, el: ModelElement, up: Path, token: string | number, problems: Problem[]): unknown {
  let text: string;
  if (typeof v === "string") text = v;
  else if (typeof v === "number") {
    if (!Number.isFinite(v)) {
      problems.push(
        formatProblem(
          trailTo(up, token),
          el,
          String(v),
          "must be a finite number",
          "debe ser un número finito",
          jsonMappingRule("values are JSON numbers or strings"),
        ),
      );
      return v;
    }
    // A JSON number is read through its shortest round-trip text, never through arithmetic.
    text = String(v);
  } else return v; // Wrong JSON type: left for the structure check to report.
  if (!el.simpleType!.numeric) return text;
  return canonicalNumber(text, el, up, token, problems);
}

/** Whether plain ASCII digits `n` (scanned from the text) are already the canonical spelling for `f`. */
function isCanonicalSpelling(text: string, n: PlainNumber, f: SimpleType): boolean {
  if (f.enumerationSpellings) return f.enumerationSpellings.has(text);
  // No leading zero, except the one of "0" or "0.5".
  if (n.leadingZeros > 0 && n.intDigits > 1) return false;
  if (f.base === "integer") return n.fracDigits < 0;
  const range = f.fractionRange;
  if (!range) return true;
  const written = Math.max(n.fracDigits, 0);
  return written >= range[0] && written <= range[1];
}

function canonicalNumber(
  text: string,
  el: ModelElement,
  up: Path,
  token: string | number,
  problems: Problem[],
): string {
  const f = el.simpleType!;
  const plain = scanPlainNumber(text);
  if (plain && isCanonicalSpelling(text, plain, f)) return text;
  const refuse: Refuse = (message, messageEs, rule) => {
    problems.push(formatProblem(trailTo(up, token), el, text, message, messageEs, rule));
    return text;
  };
  const trimmed = text.trim();
  const p = parseXsdDecimal(trimmed);
  if (!p) return refuseUnreadable(f, refuse);
  if (f.enumeration) {
    const hit = enumerationSpelling(trimmed, f);
    if (hit !== undefined) return hit;
  }
  if (f.base === "integer") return canonicalInteger(p, refuse);
  return canonicalDecimal(p, f.fractionRange, refuse);
}

/** Reports a problem with the value being written and keeps its text as it was sent. */
type Refuse = (message: string, messageEs: string, rule: string) => string;

/** A numeric code (TipoPago, IndicadorFacturacion…) is told it is a code, not an unreadable number. */
function refuseUnreadable(f: SimpleType, refuse: Refuse): string {
  const codes = f.enumeration?.join(", ");
  if (codes) return refuse(`is a code: one of ${codes}`, `es un código: uno de ${codes}`, "xsd:enumeration");
  return refuse(
    "is not a plain decimal number (no exponent, no thousands separators)",
    "no es un número decimal simple (sin exponente ni separador de miles)",
    `xsd:${f.base}`,
  );
}

function canonicalInteger(p: DecimalParts, refuse: Refuse): string {
  if (p.frac.replace(/0+$/, "") !== "")
    return refuse("must be a whole number", "debe ser un número entero", "xsd:integer");
  return numericText({ ...p, frac: "" }, 0);
}

/**
 * A decimal with the places always written for its type. Trailing zeros beyond the maximum are
 * just spelling ("1.500" for 2 places); other digits are data, never rounded away.
 */
function canonicalDecimal(p: DecimalParts, range: SimpleType["fractionRange"], refuse: Refuse): string {
  if (!range) return numericText(p, 0);
  const [minFrac, maxFrac] = range;
  if (p.frac.length <= maxFrac) return numericText(p, minFrac);
  const sig = p.frac.replace(/0+$/, "");
  if (sig.length > maxFrac) {
    return refuse(
      `has more than ${maxFrac} decimal places (values are never rounded here)`,
      `tiene más de ${maxFrac} decimales (los valores no se redondean)`,
      "xsd:fractionDigits",
    );
  }
  return numericText({ ...p, frac: sig }, minFrac);
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (typeof v !== "object") return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}

function canonicalOne(v: unknown, el: ModelElement, path: Path, problems: Problem[]): unknown {
  if (el.shape === "leaf") return canonicalLeaf(v, el, path?.up ?? null, path?.token ?? "", problems);
  if (el.shape === "array") {
    if (!Array.isArray(v)) return v;
    const item = el.item!;
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (isEmpty(x)) continue;
      const c = canonicalOne(x, item, trailTo(path, i), problems);
      if (!isEmpty(c)) out.push(c);
    }
    return out;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  return canonicalObject(v as Record<string, unknown>, el, path, problems);
}

function canonicalObject(
  obj: Record<string, unknown>,
  el: ModelElement,
  path: Path,
  problems: Problem[],
): Record<string, unknown> {
  // Known elements first, in sequence order, so the canonical JSON reads like the XML.
  const byName = el.childByName!;
  const known: number[] = [];
  let unknown: string[] | undefined;
  let inOrder = true;
  for (const key in obj) {
    const i = byName.get(key)?.position;
    if (i === undefined) (unknown ??= []).push(key);
    else {
      if (known.length > 0 && known[known.length - 1]! > i) inOrder = false;
      known.push(i);
    }
  }
  if (!inOrder) known.sort((a, b) => a - b);
  const out: Record<string, unknown> = {};
  for (const i of known) {
    const child = el.children![i]!;
    const v = obj[child.name];
    if (isEmpty(v)) continue;
    let c: unknown;
    if (child.repeated && child.shape !== "array" && Array.isArray(v)) {
      const p = trailTo(path, child.name);
      const parts: unknown[] = [];
      for (let j = 0; j < v.length; j++) {
        const part = isEmpty(v[j]) ? undefined : canonicalOne(v[j], child, trailTo(p, j), problems);
        if (!isEmpty(part)) parts.push(part);
      }
      c = parts.length === 1 ? parts[0] : parts;
    } else if (child.shape === "leaf") {
      c = canonicalLeaf(v, child, path, child.name, problems);
    } else {
      c = canonicalOne(v, child, trailTo(path, child.name), problems);
    }
    if (!isEmpty(c)) out[child.name] = c;
  }
  for (const key of unknown ?? []) {
    if (!isEmpty(obj[key])) out[key] = obj[key];
  }
  return out;
}

/**
 * Turns a request document into canonical form (see the module comment). Problems are format
 * problems found while normalizing numbers; run `checkStructure` on the result for the rest.
 */
export function canonicalize(document: unknown, kind: DocumentKind): CanonicalizeResult {
  const problems: Problem[] = [];
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    return {
      document: {},
      problems: [
        {
          path: "",
          code: "invalid_type",
          message: "document must be an object",
          messageEs: "el documento debe ser un objeto",
          severity: "error",
          rule: jsonMappingRule("a document is a JSON object (its root element's content)"),
        },
      ],
    };
  }
  const model = documentModel(kind);
  return { document: canonicalObject(document as Record<string, unknown>, model.root, null, problems), problems };
}
