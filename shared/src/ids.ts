/**
 * Dominican taxpayer identifiers and receipt numbers.
 * - RNC: 9 digits, the last a modulo-11 check digit (weights 7 9 8 6 5 4 3 2).
 * - Cédula: 11 digits, the last a Luhn check digit.
 * - e-NCF: `E` + TipoeCF (2 digits) + sequence (10 digits).
 * DGII has registered identifiers whose check digit does not verify, so a failed check digit is a
 * warning (the document may still be right); a wrong length or a non-digit is an error.
 */
import type { Problem } from "./problems.ts";
import { TIPOS_ECF, type TipoeCF } from "./tipos.ts";

const RNC_WEIGHTS = [7, 9, 8, 6, 5, 4, 3, 2] as const;

/** The check digit of an RNC from its first 8 digits. */
export function rncCheckDigit(first8: string): number {
  let total = 0;
  for (let i = 0; i < 8; i++) total += Number(first8[i]) * RNC_WEIGHTS[i]!;
  const r = total % 11;
  return r === 0 ? 2 : r === 1 ? 1 : 11 - r;
}

/** The Luhn check digit of a cédula from its first 10 digits. */
export function cedulaCheckDigit(first10: string): number {
  let total = 0;
  for (let i = 0; i < 10; i++) {
    const v = Number(first10[i]) * (i % 2 === 0 ? 1 : 2);
    total += Math.floor(v / 10) + (v % 10);
  }
  return (10 - (total % 10)) % 10;
}

export type IdKind = "rnc" | "cedula";
export type IdVerdict =
  | { ok: true; kind: IdKind }
  | { ok: false; kind: IdKind; reason: "check_digit" }
  | { ok: false; reason: "format" };

/** Classifies an RNC (9 digits) or cédula (11 digits) and verifies its check digit. */
export function verifyRncOrCedula(value: unknown): IdVerdict {
  const text = typeof value === "number" && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== "string" || !/^(\d{9}|\d{11})$/.test(text)) return { ok: false, reason: "format" };
  if (text.length === 9) {
    return rncCheckDigit(text) === Number(text[8])
      ? { ok: true, kind: "rnc" }
      : { ok: false, kind: "rnc", reason: "check_digit" };
  }
  return cedulaCheckDigit(text) === Number(text[10])
    ? { ok: true, kind: "cedula" }
    : { ok: false, kind: "cedula", reason: "check_digit" };
}

export function isValidRnc(value: unknown): boolean {
  const v = verifyRncOrCedula(value);
  return v.ok && v.kind === "rnc";
}

export function isValidCedula(value: unknown): boolean {
  const v = verifyRncOrCedula(value);
  return v.ok && v.kind === "cedula";
}

/** Problems of an RNC/cédula field: format → error, check digit → warning. */
export function rncProblems(value: unknown, path: string, field: string): Problem[] {
  const v = verifyRncOrCedula(value);
  if (v.ok) return [];
  if (v.reason === "format") {
    return [
      {
        path,
        code: "invalid_rnc",
        message: `${field} must be an RNC (9 digits) or a cédula (11 digits)`,
        messageEs: `${field} debe ser un RNC (9 dígitos) o una cédula (11 dígitos)`,
        severity: "error",
        rule: `formato-ecf: ${field} (9 u 11 NUM, validar estructura)`,
        details: { value },
      },
    ];
  }
  const what = v.kind === "rnc" ? "RNC" : "cédula";
  return [
    {
      path,
      code: "rnc_check_digit",
      message: `${field}: the ${what} check digit does not verify (DGII has registered exceptions; check the number)`,
      messageEs: `${field}: el dígito verificador de la ${what === "RNC" ? "RNC" : "cédula"} no coincide (DGII tiene excepciones registradas; verifique el número)`,
      severity: "warning",
      rule: `formato-ecf: ${field} (validar estructura)`,
      details: { value, kind: v.kind },
    },
  ];
}

export interface ENcf {
  tipo: TipoeCF;
  /** The 10-digit sequence number. */
  secuencia: string;
}

const ENCF = /^E(\d{2})(\d{10})$/;

/** Parses an e-NCF (`E310000000001`); undefined when malformed or of an unknown type. */
export function parseENcf(value: unknown): ENcf | undefined {
  if (typeof value !== "string") return undefined;
  const m = ENCF.exec(value);
  if (!m) return undefined;
  const tipo = m[1] as TipoeCF;
  return (TIPOS_ECF as readonly string[]).includes(tipo) ? { tipo, secuencia: m[2]! } : undefined;
}

/** Builds an e-NCF from a type and a sequence number (1 ≤ n < 10^10). */
export function formatENcf(tipo: TipoeCF, sequence: number | bigint): string {
  const n = BigInt(sequence);
  if (n < 1n || n >= 10_000_000_000n) throw new RangeError(`sequence out of range: ${n}`);
  return `E${tipo}${n.toString().padStart(10, "0")}`;
}

/** Problems of an e-NCF field: malformed, or of another type than the document's TipoeCF. */
export function eNcfProblems(value: unknown, tipo: TipoeCF | undefined, path: string, field = "eNCF"): Problem[] {
  const parsed = parseENcf(value);
  if (!parsed) {
    return [
      {
        path,
        code: "invalid_encf",
        message: `${field} must be E + a type code + 10 digits (e.g. E310000000001)`,
        messageEs: `${field} debe ser E + código de tipo + 10 dígitos (ej. E310000000001)`,
        severity: "error",
        rule: `formato-ecf: ${field} (13 ALFANUM)`,
        details: { value },
      },
    ];
  }
  if (tipo && parsed.tipo !== tipo) {
    return [
      {
        path,
        code: "encf_type_mismatch",
        message: `${field} is of type ${parsed.tipo} but TipoeCF is ${tipo}`,
        messageEs: `${field} es del tipo ${parsed.tipo} pero TipoeCF es ${tipo}`,
        severity: "error",
        rule: `formato-ecf: ${field} (secuencia autorizada del tipo de e-CF)`,
        details: { value, tipoENcf: parsed.tipo, tipoeCF: tipo },
      },
    ];
  }
  return [];
}
