/**
 * Typed lookups over DGII's catalogs (generated from the kit's CSVs by scripts/gen-catalogs.ts).
 */
import {
  ENUMERACIONES,
  IMPUESTOS_ADICIONALES,
  MONEDAS,
  PROVINCIAS_MUNICIPIOS,
  UNIDADES_MEDIDA,
} from "./generated/catalogs.ts";
import { dec, type Decimal } from "./money.ts";

export { ENUMERACIONES, IMPUESTOS_ADICIONALES, MONEDAS, PROVINCIAS_MUNICIPIOS, UNIDADES_MEDIDA };

export type UnidadMedida = (typeof UNIDADES_MEDIDA)[number];
export type ImpuestoAdicional = (typeof IMPUESTOS_ADICIONALES)[number];
export type CodigoImpuestoAdicional = ImpuestoAdicional["codigo"];
export type ImpuestoAdicionalKind = ImpuestoAdicional["kind"];
export type Moneda = (typeof MONEDAS)[number];
export type CodigoMoneda = Moneda["codigo"];
export type EnumeracionName = keyof typeof ENUMERACIONES;

const byCode = <T extends { codigo: string }>(rows: readonly T[]) => new Map(rows.map((r) => [r.codigo, r]));
const unidades = byCode(UNIDADES_MEDIDA);
const impuestos = byCode(IMPUESTOS_ADICIONALES);
const monedas = byCode(MONEDAS);
const lugares = byCode(PROVINCIAS_MUNICIPIOS);

/** Unit of measure by code ("1".."62"; leading zeros tolerated). */
export function unidadMedida(code: unknown): UnidadMedida | undefined {
  const n = typeof code === "number" ? code : typeof code === "string" && /^\d{1,2}$/.test(code) ? Number(code) : NaN;
  return Number.isInteger(n) ? unidades.get(String(n)) : undefined;
}

/** Bulk (granel): the ISC rules treat it differently (formato-ecf fields 107-108). */
export const UNIDAD_GRANEL = "18";

/** Additional tax by its 3-digit code ("001".."039"; 1..39 accepted and padded). */
export function impuestoAdicional(code: unknown): ImpuestoAdicional | undefined {
  const text = typeof code === "number" ? String(code) : typeof code === "string" ? code : "";
  if (!/^\d{1,3}$/.test(text)) return undefined;
  return impuestos.get(text.padStart(3, "0"));
}

/** The catalog rate as an exact decimal (percent, or DOP per unit for ISC específico). */
export function tasaImpuestoAdicional(t: ImpuestoAdicional): Decimal {
  return dec(t.tasa);
}

export function moneda(code: unknown): Moneda | undefined {
  return typeof code === "string" ? monedas.get(code) : undefined;
}

/** Province, municipality or municipal district by its 6-digit code. */
export function provinciaMunicipio(code: unknown): (typeof PROVINCIAS_MUNICIPIOS)[number] | undefined {
  return typeof code === "string" ? lugares.get(code) : undefined;
}

/** The allowed values of one enumeration, as strings exactly as in XML. */
export function enumValues(name: EnumeracionName): readonly string[] {
  return ENUMERACIONES[name].values.map((v) => v.valor);
}

export function isEnumValue(name: EnumeracionName, value: unknown): boolean {
  const text = typeof value === "number" ? String(value) : value;
  return typeof text === "string" && enumValues(name).includes(text);
}

/** ITBIS rates by IndicadorFacturacion (formato-ecf: 1 → 18 %, 2 → 16 %, 3 → 0 %). */
export const ITBIS_RATES = { "1": "18", "2": "16", "3": "0" } as const;
