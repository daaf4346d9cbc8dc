// Formato 608, Comprobantes Anulados (formato-606-607-608.txt §3), for issuers that still file
// it: every e-NCF DGII voided (ANECF) in the month, one record each.
//
// Open points decided here:
// - The month a number belongs to is the month DGII voided it (Santo Domingo time): the 608 says
//   what was voided in the period.
// - Fecha Comprobante: the receipt's FechaEmision when the number held one (signed, never sent,
//   voided with its range); a number never used has no comprobante, so its void date.
// - Tipo de Anulación: the ANECF carries no reason. A voided receipt is 04 (Corrección de la
//   información: it was replaced before DGII saw it); a number never used is 08 (Errores en
//   secuencia de NCF: a gap in the sequence). Both are DGII's current list (01–10).
import { drIsoDate } from "@ecf/shared";
import type { VoidedRange } from "../ledger/issuer/voided-numbers.ts";
import { dgiiFileName, recordLimitWarning, txtDate, type FormatLine, type MonthlyFormat } from "./dgii-txt.ts";

export const COLUMNS_608 = ["numeroComprobanteFiscal", "fechaComprobante", "tipoAnulacion"] as const;
export type Column608 = (typeof COLUMNS_608)[number];

export const TIPOS_ANULACION = {
  "01": "Deterioro de factura pre-impresa",
  "02": "Errores de impresión (factura pre-impresa)",
  "03": "Impresión defectuosa",
  "04": "Corrección de la información",
  "05": "Cambio de productos",
  "06": "Devolución de productos",
  "07": "Omisión de productos",
  "08": "Errores en secuencia de NCF",
  "09": "Por cese de operaciones",
  "10": "Pérdida o hurto de talonarios",
} as const;

/** Numbers a 608 is built for at most: far above DGII's 4,999 records, short of a memory problem. */
export const MAX_VOIDED_NUMBERS = 100_000;

export interface Line608 extends FormatLine<Column608> {
  encf: string;
  /** "receipt": a signed receipt voided before it was sent; "unused": a number never used. */
  kind: "receipt" | "unused";
}

export type Report608 = MonthlyFormat<Column608, Line608, "608">;

export function countVoidedNumbers(ranges: readonly VoidedRange[]): number {
  return ranges.reduce((n, r) => n + (r.lastNumber - r.firstNumber + 1), 0);
}

export interface Build608Input {
  rnc: string;
  periodo: string;
  ranges: readonly VoidedRange[];
  /** FechaEmision (yyyy-MM-dd) of the voided numbers that held a receipt, by e-NCF. */
  receipts: ReadonlyMap<string, string>;
}

export function build608(input: Build608Input): Report608 {
  // A number voided twice (overlapping ANECF) is one record.
  const byEncf = new Map<string, Line608>();
  for (const range of input.ranges) {
    const voidDate = drIsoDate(new Date(range.voidedAt));
    for (let n = range.firstNumber; n <= range.lastNumber; n++) {
      const encf = `E${range.tipoeCF}${String(n).padStart(10, "0")}`;
      const issued = input.receipts.get(encf);
      if (byEncf.has(encf)) continue;
      byEncf.set(encf, {
        encf,
        kind: issued ? "receipt" : "unused",
        fields: {
          numeroComprobanteFiscal: encf,
          fechaComprobante: txtDate(issued ?? voidDate),
          tipoAnulacion: issued ? "04" : "08",
        },
      });
    }
  }
  const lines = [...byEncf.values()].sort((a, b) => (a.encf < b.encf ? -1 : a.encf > b.encf ? 1 : 0));
  return {
    format: "608",
    rnc: input.rnc,
    period: input.periodo,
    fileName: dgiiFileName("608", input.rnc, input.periodo),
    recordCount: lines.length,
    complete: true,
    missing: [],
    warnings: recordLimitWarning("608", lines.length),
    lines,
  };
}
