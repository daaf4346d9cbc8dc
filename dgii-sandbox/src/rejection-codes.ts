// The message codes the sandbox puts in `mensajes`. DGII publishes no code table in the kit's
// documents, so each code here is tied to the situation the platform must handle; the codes the
// platform's DGII client branches on (615, 645, 1930, 1960) keep their DGII numbers, the others are
// sandbox codes. `secuenciaUtilizada: false` follows the list in descripcion-tecnica (the e-NCF may
// be reused after: invalid certificate/signature, invalid structure, unauthorised or expired e-NCF).
import type { Mensaje } from "./outcome.ts";

export const CODES = {
  /** XSD validation failed. */
  estructuraInvalida: { codigo: 1, secuenciaUtilizada: false },
  /** The XMLDSig signature does not verify. */
  firmaInvalida: { codigo: 2, secuenciaUtilizada: false },
  /** The signer is not a delegate of RNCEmisor (signers.ts); the e-NCF may be reused. */
  firmanteNoAutorizado: { codigo: 6, secuenciaUtilizada: false },
  /** The e-NCF is not `E` + type + 10 digits, or its type does not match TipoeCF. */
  encfInvalido: { codigo: 3, secuenciaUtilizada: false },
  /** A format rule beyond the XSD (obligation matrix, dates, per-type rules) is broken. */
  formatoInvalido: { codigo: 5, secuenciaUtilizada: true },
  /** The e-NCF was voided through anulacionrangos. */
  encfAnulado: { codigo: 4, secuenciaUtilizada: true },
  /** FechaVencimientoSecuencia is before the reception date. */
  secuenciaVencida: { codigo: 615, secuenciaUtilizada: false },
  /** The same RNCEmisor + e-NCF was already accepted. */
  encfDuplicado: { codigo: 645, secuenciaUtilizada: true },
  /** An E34 text correction (CodigoModificacion 2) carries amounts in Totales besides MontoTotal. */
  correccionTextoConMontos: { codigo: 1930, secuenciaUtilizada: true },
  /** An E34 text correction (CodigoModificacion 2) whose MontoTotal is not zero. */
  correccionTextoMontoTotal: { codigo: 1960, secuenciaUtilizada: true },
  /** Totals do not add up within DGII's tolerance: Aceptado Condicional, not a rejection. */
  totalesFueraDeTolerancia: { codigo: 1001, secuenciaUtilizada: true },
} as const;

export type CodeName = keyof typeof CODES;

export function mensaje(name: CodeName, valor: string): Mensaje {
  return { codigo: CODES[name].codigo, valor };
}
