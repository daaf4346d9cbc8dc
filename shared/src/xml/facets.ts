/**
 * Checks one leaf value against its XSD simple type, the way libxml2 does (value semantics for
 * numbers, XSD regex semantics for patterns), plus the calendar checks the patterns cannot
 * express (31-02-2025, 24:00:00). Exact decimal arithmetic on the text: no floats anywhere.
 */
import { splitPlainDecimal } from "../money.ts";
import type { RawFacets } from "./model-types.ts";

export interface FacetViolation {
  /** The XSD facet (or format rule) violated: `xsd:maxLength`, `xsd:pattern`, `dd-MM-yyyy`... */
  rule: string;
  message: string;
  messageEs: string;
  details?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Decimals as text

export interface DecimalParts {
  negative: boolean;
  /** Integer digits without leading zeros ("" for zero). */
  int: string;
  /** Fraction digits as written (trailing zeros kept). */
  frac: string;
}

/** Parses the xs:decimal lexical form; undefined if it is not one (exponents are not). */
export function parseXsdDecimal(text: string): DecimalParts | undefined {
  const plain = splitPlainDecimal(text);
  if (!plain) return undefined;
  const [negative, int, frac] = plain;
  let zeros = 0;
  while (zeros < int.length && int.charCodeAt(zeros) === 48) zeros++;
  return { negative, int: zeros ? int.slice(zeros) : int, frac };
}

function significantFrac(p: DecimalParts): string {
  let end = p.frac.length;
  while (end > 0 && p.frac.charCodeAt(end - 1) === 48) end--;
  return end === p.frac.length ? p.frac : p.frac.slice(0, end);
}

function isZero(p: DecimalParts): boolean {
  return p.int === "" && significantFrac(p) === "";
}

/** Compares two xs:decimal values exactly: -1, 0 or 1. */
export function compareXsdDecimal(a: DecimalParts, b: DecimalParts): number {
  const an = a.negative && !isZero(a);
  const bn = b.negative && !isZero(b);
  if (an !== bn) return an ? -1 : 1;
  const sign = an ? -1 : 1;
  if (a.int.length !== b.int.length) return a.int.length < b.int.length ? -sign : sign;
  if (a.int !== b.int) return a.int < b.int ? -sign : sign;
  const fa = significantFrac(a);
  const fb = significantFrac(b);
  const n = Math.max(fa.length, fb.length);
  const pa = fa.padEnd(n, "0");
  const pb = fb.padEnd(n, "0");
  if (pa === pb) return 0;
  return pa < pb ? -sign : sign;
}

/** XSD totalDigits/fractionDigits count the value's digits, not the characters written. */
export function xsdDecimalDigits(p: DecimalParts): { total: number; fraction: number } {
  const fraction = significantFrac(p).length;
  return { total: Math.max(p.int.length + fraction, 1), fraction };
}

/** The digit counts of an unsigned plain decimal written in ASCII ("0012.50"). */
export interface PlainNumber {
  /** Digits before the point, leading zeros included (at least 1). */
  intDigits: number;
  leadingZeros: number;
  /** Digits after the point (at least 1), or -1 when there is no point. */
  fracDigits: number;
  /** Fraction digits up to the last non-zero one. */
  fracSignificant: number;
}

// Reused by every scan: most leaves are numbers, and their checks need only these counts.
const scanned: PlainNumber = { intDigits: 0, leadingZeros: 0, fracDigits: -1, fracSignificant: 0 };

/**
 * Reads `text` as digits, optionally a point and more digits (no sign, no space, no empty part),
 * without allocating. The answer is valid until the next call; undefined for any other text.
 */
export function scanPlainNumber(text: string): PlainNumber | undefined {
  const n = text.length;
  let i = 0;
  while (i < n && text.charCodeAt(i) === 48) i++;
  const zeros = i;
  while (i < n && isAsciiDigit(text.charCodeAt(i))) i++;
  const intDigits = i;
  if (intDigits === 0) return undefined;
  let fracDigits = -1;
  let fracSignificant = 0;
  if (i < n) {
    if (text.charCodeAt(i) !== 46) return undefined;
    const start = ++i;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (!isAsciiDigit(c)) return undefined;
      if (c !== 48) fracSignificant = i - start + 1;
    }
    fracDigits = i - start;
    if (fracDigits === 0) return undefined;
  }
  scanned.intDigits = intDigits;
  scanned.leadingZeros = zeros;
  scanned.fracDigits = fracDigits;
  scanned.fracSignificant = fracSignificant;
  return scanned;
}

function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Compares the scanned `text` with a non-negative `bound`, exactly: -1, 0 or 1. */
function comparePlain(text: string, n: PlainNumber, bound: DecimalParts): number {
  const intLength = n.intDigits - n.leadingZeros;
  if (intLength !== bound.int.length) return intLength < bound.int.length ? -1 : 1;
  for (let k = 0; k < intLength; k++) {
    const a = text.charCodeAt(n.leadingZeros + k);
    const b = bound.int.charCodeAt(k);
    if (a !== b) return a < b ? -1 : 1;
  }
  const fracLength = Math.max(n.fracSignificant, bound.frac.length);
  for (let k = 0; k < fracLength; k++) {
    const a = k < n.fracSignificant ? text.charCodeAt(n.intDigits + 1 + k) : 48;
    const b = k < bound.frac.length ? bound.frac.charCodeAt(k) : 48;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// XSD regular expressions → JavaScript

const translated = new Map<string, RegExp | null>();

/**
 * Translates an XSD 1.0 regex into an anchored JS regex with XSD's meanings: `^`/`$` are plain
 * characters, `\d` is any Unicode digit, `\w` anything but punctuation/separators/others, `\s`
 * only space, tab, CR, LF, `.` anything but CR/LF.
 */
export function xsdPatternToRegExp(pattern: string): RegExp | null {
  if (translated.has(pattern)) return translated.get(pattern)!;
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const n = pattern[i + 1] ?? "";
      i++;
      switch (n) {
        case "d":
          out += "\\p{Nd}";
          break;
        case "D":
          out += "\\P{Nd}";
          break;
        case "s":
          out += inClass ? " \\t\\n\\r" : "[ \\t\\n\\r]";
          break;
        case "S":
          out += inClass ? "\\S" : "[^ \\t\\n\\r]";
          break;
        case "w":
          out += inClass ? "\\p{L}\\p{M}\\p{N}\\p{S}" : "[\\p{L}\\p{M}\\p{N}\\p{S}]";
          break;
        case "W":
          out += inClass ? "\\p{P}\\p{Z}\\p{C}" : "[\\p{P}\\p{Z}\\p{C}]";
          break;
        case "-":
          out += inClass ? "\\-" : "-";
          break;
        default:
          out += "\\" + n;
      }
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (pattern[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (pattern[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (c === "^" || c === "$") out += "\\" + c;
    else if (c === ".") out += "[^\\n\\r]";
    else out += c;
  }
  let re: RegExp | null;
  try {
    re = new RegExp(`^(?:${out})$`, "u");
  } catch {
    re = null; // Not expressible: libxml2 remains the judge for this facet.
  }
  translated.set(pattern, re);
  return re;
}

// ---------------------------------------------------------------------------------------------
// Dates

type DateKind = "date" | "dateTime";

/** DGII's dd-MM-yyyy and dd-MM-yyyy HH:mm:ss types are recognisable by their patterns. */
export function dateKindOf(f: RawFacets): DateKind | undefined {
  const p = f.patterns?.join("|") ?? "";
  if (!p.includes("(3[01]|")) return undefined;
  return p.includes(":") ? "dateTime" : "date";
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function checkDate(v: string, kind: DateKind): FacetViolation | undefined {
  const re = kind === "date" ? /^(\d{2})-(\d{2})-(\d{4})$/ : /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/;
  const m = re.exec(v);
  const format = kind === "date" ? "dd-MM-yyyy" : "dd-MM-yyyy HH:mm:ss";
  // DGII's format (dd-MM-AAAA, HH:mm:ss 24 h), stricter than some XSD patterns (a 1-digit hour).
  const rule = `formato-ecf: ${format}`;
  if (!m) {
    return {
      rule,
      message: `must be a ${kind === "date" ? "date" : "date and time"} written ${format}`,
      messageEs: `debe ser una fecha${kind === "date" ? "" : " y hora"} con formato ${format}`,
    };
  }
  const [d, mo, y, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number?, number?, number?];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y)) {
    return { rule, message: "is not a calendar date", messageEs: "no es una fecha válida del calendario" };
  }
  if (h !== undefined && (h > 23 || mi! > 59 || s! > 59)) {
    return { rule, message: "is not a valid 24-hour time", messageEs: "no es una hora válida (formato 24 horas)" };
  }
  return undefined;
}

const XS_DATETIME =
  /^-?(\d{4,})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T(?:([01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?|24:00:00(?:\.0+)?)(?:Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?$/;

/** xs:dateTime's lexical space as libxml2 reads it: a real calendar day, no year 0000, 24:00:00, zones within ±14:00. */
function isXsDateTime(v: string): boolean {
  const m = XS_DATETIME.exec(v);
  if (!m) return false;
  const year = Number(m[1]);
  return year !== 0 && Number(m[3]) <= daysIn(Number(m[2]), year);
}

// ---------------------------------------------------------------------------------------------
// The check

// XML 1.0 Char production, minus what the serializer would have to escape anyway.
const NOT_XML_CHAR =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isNumericBase(base: string): boolean {
  return base === "decimal" || base === "integer";
}

/** A numeric value's key for equality by value: "1", "01" and "1.0" share one. */
export function xsdDecimalKey(p: DecimalParts): string {
  const frac = significantFrac(p);
  if (p.int === "" && frac === "") return "0";
  return (p.negative ? "-" : "") + (p.int || "0") + (frac ? "." + frac : "");
}

type Bound = readonly [
  key: "minInclusive" | "maxInclusive" | "minExclusive" | "maxExclusive",
  bound: DecimalParts,
  text: string,
];

/**
 * One XSD simple type, compiled once: every facet the check reads, on an object of one shape.
 * The generated facet objects each have their own set of keys, so reading them for every leaf of
 * every document makes V8's property loads megamorphic; this class keeps them monomorphic.
 */
export class SimpleType {
  readonly base: string;
  readonly numeric: boolean;
  readonly length: number | undefined;
  readonly minLength: number | undefined;
  readonly maxLength: number | undefined;
  readonly hasLengthFacet: boolean;
  readonly fractionDigits: number | undefined;
  readonly totalDigits: number | undefined;
  readonly enumeration: readonly string[] | undefined;
  /** Numeric enumerations by value → the enumeration's own spelling. */
  readonly numericEnum: ReadonlyMap<string, string> | undefined;
  readonly patterns: readonly string[] | undefined;
  /** Translated patterns; null when one cannot be expressed (libxml2 judges it then). */
  readonly regexes: readonly RegExp[] | null | undefined;
  readonly dateKind: DateKind | undefined;
  readonly bounds: readonly Bound[];
  /** Of a decimal with fractionDigits: [places always written, places allowed] (see canonical.ts). */
  readonly fractionRange: readonly [number, number] | undefined;
  /**
   * The enumeration's spellings; of a numeric one, the spelling each value takes in canonical
   * form. A value written exactly so is one of them without being parsed.
   */
  readonly enumerationSpellings: ReadonlySet<string> | undefined;
  /** A numeric type whose plain ASCII values `passesAsPlainNumber` can judge (no bound below zero, no length, no date). */
  readonly plainNumbers: boolean;

  constructor(readonly facets: RawFacets) {
    const f = facets;
    this.base = f.base;
    this.numeric = isNumericBase(f.base);
    this.length = f.length;
    this.minLength = f.minLength;
    this.maxLength = f.maxLength;
    this.hasLengthFacet = f.length !== undefined || f.minLength !== undefined || f.maxLength !== undefined;
    this.fractionDigits = f.fractionDigits;
    this.totalDigits = f.totalDigits;
    this.fractionRange =
      f.base === "decimal" && f.fractionDigits !== undefined
        ? [Math.min(2, f.fractionDigits), f.fractionDigits]
        : undefined;
    this.enumeration = f.enumeration;
    const bounds: Bound[] = [];
    for (const key of ["minInclusive", "minExclusive", "maxInclusive", "maxExclusive"] as const) {
      const text = f[key];
      const p = text === undefined ? undefined : parseXsdDecimal(text);
      if (p && text !== undefined) bounds.push([key, p, text]);
    }
    this.bounds = bounds;
    let numericEnum: Map<string, string> | undefined;
    if (this.numeric && f.enumeration) {
      numericEnum = new Map();
      for (const e of f.enumeration) {
        const p = parseXsdDecimal(e);
        if (p && !numericEnum.has(xsdDecimalKey(p))) numericEnum.set(xsdDecimalKey(p), e);
      }
    }
    this.numericEnum = numericEnum;
    this.patterns = f.patterns?.length ? f.patterns : undefined;
    const regexes = this.patterns?.map(xsdPatternToRegExp);
    this.regexes = regexes ? (regexes.every((r) => r !== null) ? (regexes as RegExp[]) : null) : undefined;
    this.dateKind = dateKindOf(f);
    this.enumerationSpellings = f.enumeration
      ? new Set(this.numeric ? numericEnum!.values() : f.enumeration)
      : undefined;
    this.plainNumbers =
      this.numeric && !this.hasLengthFacet && !this.dateKind && bounds.every(([, bound]) => !bound.negative);
  }
}

const compiled = new WeakMap<RawFacets, SimpleType>();

/** The compiled form of `f` (the model holds it on each leaf; this is for callers with bare facets). */
export function simpleType(f: RawFacets): SimpleType {
  let c = compiled.get(f);
  if (!c) compiled.set(f, (c = new SimpleType(f)));
  return c;
}

/** For a numeric enumeration: the enumeration's own spelling of `value`, if it is one of them. */
export function enumerationSpelling(value: string, c: SimpleType): string | undefined {
  if (!c.numericEnum) return c.enumeration?.includes(value) ? value : undefined;
  const p = parseXsdDecimal(value.trim());
  return p ? c.numericEnum.get(xsdDecimalKey(p)) : undefined;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const HAS_SPACE = /[ \t\n\r]/;

function charLength(v: string): number {
  return SURROGATE.test(v) ? [...v].length : v.length;
}

export interface CheckFacetsOptions {
  /**
   * Only what the XSD itself says (libxml2's verdict): without DGII's calendar checks of the
   * dd-MM-yyyy types, which the schemas' patterns cannot express (31-02-2025 passes the XSD).
   */
  xsdOnly?: boolean;
}

/** Checks `value` (the leaf text) against the simple type `t`; returns the first violation found. */
export function checkFacets(
  value: string,
  t: RawFacets | SimpleType,
  options?: CheckFacetsOptions,
): FacetViolation | undefined {
  return firstViolation(value, t instanceof SimpleType ? t : simpleType(t), options?.xsdOnly === true);
}

/** Printable ASCII: no character XML refuses, no surrogate, no whitespace but the space. */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/**
 * Whether a numeric leaf written as plain ASCII digits passes every facet of `c`, without
 * allocating. "No" only means the full check must decide (and explain) it.
 */
function passesAsPlainNumber(value: string, c: SimpleType): boolean {
  const n = scanPlainNumber(value);
  if (!n || (c.base === "integer" && n.fracDigits >= 0)) return false;
  if (c.enumerationSpellings && !c.enumerationSpellings.has(value)) return false;
  if (c.fractionDigits !== undefined && n.fracSignificant > c.fractionDigits) return false;
  if (c.totalDigits !== undefined && Math.max(n.intDigits - n.leadingZeros + n.fracSignificant, 1) > c.totalDigits)
    return false;
  for (const [key, bound] of c.bounds) if (breaksBound(key, comparePlain(value, n, bound))) return false;
  return !c.regexes || c.regexes.some((re) => re.test(value));
}

function firstViolation(value: string, c: SimpleType, xsdOnly: boolean): FacetViolation | undefined {
  if (c.plainNumbers && passesAsPlainNumber(value, c)) return undefined;
  const ascii = PRINTABLE_ASCII.test(value);
  if (!ascii && NOT_XML_CHAR.test(value)) {
    return {
      rule: "xml:Char",
      message: "contains a character XML cannot carry",
      messageEs: "contiene un carácter no permitido en XML",
    };
  }
  const v = collapsedValue(value, c, ascii);
  let num: DecimalParts | undefined;
  if (c.numeric) {
    num = parseXsdDecimal(v);
    if (!num || (c.base === "integer" && num.frac !== "")) return notANumber(c.base);
  } else if (c.base === "dateTime" && !isXsDateTime(v)) {
    return {
      rule: "xsd:dateTime",
      message: "must be an xs:dateTime (yyyy-MM-ddTHH:mm:ss)",
      messageEs: "debe ser un xs:dateTime (yyyy-MM-ddTHH:mm:ss)",
    };
  }
  return (
    (c.hasLengthFacet ? lengthViolation(ascii ? v.length : charLength(v), c) : undefined) ??
    (c.enumeration ? enumerationViolation(v, num, c) : undefined) ??
    (num ? (digitsViolation(num, c) ?? boundsViolation(num, c)) : undefined) ??
    (c.dateKind && !xsdOnly ? checkDate(v, c.dateKind) : undefined) ??
    patternViolation(v, c)
  );
}

/** Non-string built-ins collapse whitespace before validation (XSD whiteSpace="collapse"). */
function collapsedValue(value: string, c: SimpleType, ascii: boolean): string {
  return c.base === "string" || (ascii ? !value.includes(" ") : !HAS_SPACE.test(value))
    ? value
    : value.replace(/[ \t\n\r]+/g, " ").trim();
}

/** `base` is one of the numeric built-ins: "integer" or "decimal". */
function notANumber(base: string): FacetViolation {
  const integer = base === "integer";
  const digits = integer ? "digits" : "digits and a decimal point";
  const numero = integer ? "un número entero" : "un número decimal";
  const digitos = integer ? "dígitos" : "dígitos y punto decimal";
  return {
    rule: `xsd:${base}`,
    message: `must be ${integer ? "an integer" : "a decimal number"} (${digits}, no exponent or thousands separators)`,
    messageEs: `debe ser ${numero} (${digitos}, sin exponente ni separador de miles)`,
  };
}

/** length, minLength and maxLength, counted in characters (`chars`), not UTF-16 units. */
function lengthViolation(chars: number, c: SimpleType): FacetViolation | undefined {
  if (c.length !== undefined && chars !== c.length) {
    return {
      rule: "xsd:length",
      message: `must be exactly ${c.length} characters long`,
      messageEs: `debe tener exactamente ${c.length} caracteres`,
      details: { length: chars },
    };
  }
  if (c.minLength !== undefined && chars < c.minLength) {
    return {
      rule: "xsd:minLength",
      message: `must be at least ${c.minLength} characters long`,
      messageEs: `debe tener al menos ${c.minLength} caracteres`,
      details: { length: chars },
    };
  }
  if (c.maxLength !== undefined && chars > c.maxLength) {
    return {
      rule: "xsd:maxLength",
      message: `must be at most ${c.maxLength} characters long`,
      messageEs: `debe tener como máximo ${c.maxLength} caracteres`,
      details: { length: chars },
    };
  }
  return undefined;
}

/** A numeric enumeration compares by value ("01" is "1"), any other by spelling. */
function enumerationViolation(v: string, num: DecimalParts | undefined, c: SimpleType): FacetViolation | undefined {
  const enumeration = c.enumeration!;
  if (num ? c.numericEnum!.has(xsdDecimalKey(num)) : c.enumerationSpellings!.has(v)) return undefined;
  const shown = enumeration.length <= 12 ? enumeration.join(", ") : `${enumeration.slice(0, 12).join(", ")}, …`;
  return {
    rule: "xsd:enumeration",
    message: `must be one of: ${shown}`,
    messageEs: `debe ser uno de: ${shown}`,
    details: { allowed: enumeration.length <= 50 ? enumeration : enumeration.length },
  };
}

/** fractionDigits and totalDigits, counted on the value's digits. */
function digitsViolation(num: DecimalParts, c: SimpleType): FacetViolation | undefined {
  const d = xsdDecimalDigits(num);
  if (c.fractionDigits !== undefined && d.fraction > c.fractionDigits) {
    return {
      rule: "xsd:fractionDigits",
      message: `must have at most ${c.fractionDigits} decimal places`,
      messageEs: `debe tener como máximo ${c.fractionDigits} decimales`,
      details: { fractionDigits: d.fraction },
    };
  }
  if (c.totalDigits !== undefined && d.total > c.totalDigits) {
    return {
      rule: "xsd:totalDigits",
      message: `must have at most ${c.totalDigits} digits`,
      messageEs: `debe tener como máximo ${c.totalDigits} dígitos`,
      details: { totalDigits: d.total },
    };
  }
  return undefined;
}

/** The min/max inclusive/exclusive bounds, compared exactly. */
function boundsViolation(num: DecimalParts, c: SimpleType): FacetViolation | undefined {
  for (const [key, bound, text] of c.bounds) {
    if (breaksBound(key, compareXsdDecimal(num, bound))) {
      const [en, es] = BOUND_WORDS[key];
      return { rule: `xsd:${key}`, message: `must be ${en} ${text}`, messageEs: `debe ser ${es} ${text}` };
    }
  }
  return undefined;
}

/** Whether a value comparing `cmp` (-1, 0, 1) to the bound breaks a bound of kind `key`. */
function breaksBound(key: Bound[0], cmp: number): boolean {
  switch (key) {
    case "minInclusive":
      return cmp < 0;
    case "minExclusive":
      return cmp <= 0;
    case "maxInclusive":
      return cmp > 0;
    case "maxExclusive":
      return cmp >= 0;
  }
}

function patternViolation(v: string, c: SimpleType): FacetViolation | undefined {
  if (!c.regexes || c.regexes.some((re) => re.test(v))) return undefined;
  return {
    rule: "xsd:pattern",
    message: `does not match the required format ${c.patterns!.join(" | ")}`,
    messageEs: `no cumple el formato requerido ${c.patterns!.join(" | ")}`,
    details: { patterns: c.patterns },
  };
}

const BOUND_WORDS = {
  minInclusive: ["at least", "mayor o igual que"],
  minExclusive: ["greater than", "mayor que"],
  maxInclusive: ["at most", "menor o igual que"],
  maxExclusive: ["less than", "menor que"],
} as const;
