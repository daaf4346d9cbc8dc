/**
 * Obligation codes of every e-CF field per type (formato-ecf: 0 prohibited, 1 required,
 * 2 conditional, 3 optional). The matrix is data generated from DGII's document by
 * scripts/gen-obligations.ts; this module only reads it.
 */
import { ARRAY_CONTAINERS, LEAF_PATHS, OBLIGATIONS, OBLIGATION_TYPES } from "./generated/obligations.ts";
import type { TipoeCF } from "./tipos.ts";

export { ARRAY_CONTAINERS, OBLIGATIONS };

export type ObligationCode = 0 | 1 | 2 | 3;
export type FieldPath = keyof typeof OBLIGATIONS;

export const OBLIGATION_LABEL: Record<ObligationCode, string> = {
  0: "prohibited",
  1: "required",
  2: "conditional",
  3: "optional",
};

/** Every field path (XML element path below the root), in document order. */
export const FIELD_PATHS = Object.keys(OBLIGATIONS) as FieldPath[];

const leafSet = new Set<string>(LEAF_PATHS);
const columns = new Map<string, number>(OBLIGATION_TYPES.map((t, i) => [t, i]));

export function isLeafPath(path: string): boolean {
  return leafSet.has(path);
}

/** The code of `path` for `tipo`, or undefined when DGII's format has no such field. */
export function obligationOf(path: string, tipo: TipoeCF): ObligationCode | undefined {
  const row = (OBLIGATIONS as Record<string, readonly number[]>)[path];
  const col = columns.get(tipo);
  if (!row || col === undefined) return undefined;
  return row[col] as ObligationCode;
}

/** The field paths with a given code for a type (e.g. everything required in an E31). */
export function fieldsWith(tipo: TipoeCF, code: ObligationCode): FieldPath[] {
  return FIELD_PATHS.filter((p) => obligationOf(p, tipo) === code);
}

/** The repeated child name of an array container path (`DetallesItems` → `Item`). */
export function arrayChild(path: string): string | undefined {
  return (ARRAY_CONTAINERS as Record<string, string>)[path];
}
