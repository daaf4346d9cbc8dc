/**
 * Defensive readers over an untrusted JSON e-CF: every accessor accepts anything (null, arrays,
 * strings, deep garbage) and answers undefined instead of throwing, so totals and validation can
 * run on whatever a client sends and report problems instead of crashing.
 */
import { parseDecimal, type Decimal } from "./money.ts";

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The object at `keys` below `root`, or undefined. */
export function objAt(root: unknown, ...keys: string[]): JsonObject | undefined {
  let cur: unknown = root;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return isObject(cur) ? cur : undefined;
}

/** The raw value of a key of an object (undefined when the holder is not an object). */
// biome-ignore lint/suspicious/noShadowRestrictedNames: a module function, never called as Object.prototype.valueOf
export function valueOf(holder: unknown, key: string): unknown {
  return isObject(holder) ? holder[key] : undefined;
}

const NO_OBJECTS: readonly JsonObject[] = Object.freeze([]);

/** A repeated container: only JSON arrays count (of objects, for tables of records). */
export function objectsOf(holder: unknown, key: string): readonly JsonObject[] {
  const v = valueOf(holder, key);
  // Most tables are absent from most lines: one shared empty answer allocates nothing.
  return Array.isArray(v) ? v.filter(isObject) : NO_OBJECTS;
}

/** A leaf as text exactly as written (a JSON number through String(n)); undefined if absent/empty. */
export function textOf(holder: unknown, key: string): string | undefined {
  const v = valueOf(holder, key);
  if (typeof v === "string") return v === "" ? undefined : v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "bigint") return v.toString();
  return undefined;
}

/** A leaf read as an exact decimal; undefined if absent or not a number. */
export function decimalOf(holder: unknown, key: string): Decimal | undefined {
  const v = valueOf(holder, key);
  if (v === "" || v === undefined || v === null) return undefined;
  return parseDecimal(v);
}

/** A leaf that is present (not undefined, null or ""). */
export function isPresent(v: unknown): boolean {
  return v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && v.length === 0);
}

/** A code leaf ("1", 1, "01"...) normalised to its text without leading zeros for small ints. */
export function codeOf(holder: unknown, key: string): string | undefined {
  return textOf(holder, key)?.trim();
}
