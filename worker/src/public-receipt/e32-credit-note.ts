// What the issuer does with the E32 its buyer exchanged for an E31 (the `creditoFiscalE32`
// setting; docs/buyers.md says which DGII rule each choice rests on). "none": the E32 stays as it
// is, the E31 referencing it with CodigoModificacion 5 is DGII's own record of the exchange.
// "credit_note": an E34 voiding the E32 in full (CodigoModificacion 1, "Anula el NCF modificado"),
// issued right after the E31 by the same path as every receipt, so the 607 carries the sale once.
// Its Idempotency-Key is named after the E32: one credit note per exchange, even when asked twice.
import { dgiiDateOf, objAt, type JsonDocument } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { issueReceipt } from "../issuing/issue.ts";
import type { Receipt } from "../ledger/rows.ts";

/** The Idempotency-Key of the credit note voiding an exchanged E32. */
export const e32CreditNoteKey = (e32: string) => `credito-fiscal-nc:${e32}`;

/** An E34 of the E32's lines and totals, voiding it (CodigoModificacion 1). */
export function e32CreditNoteRequest(e32: JsonDocument, receipt: Receipt, e31: string) {
  const idDoc = (objAt(e32, "Encabezado", "IdDoc") ?? {}) as Record<string, unknown>;
  const encabezado = (objAt(e32, "Encabezado") ?? {}) as Record<string, unknown>;
  const keep = (names: string[]) =>
    Object.fromEntries(names.filter((n) => idDoc[n] !== undefined).map((n) => [n, idDoc[n]]));
  return {
    Encabezado: {
      IdDoc: { TipoeCF: "34", ...keep(["IndicadorMontoGravado", "TipoIngresos", "TipoPago"]) },
      ...(encabezado.Comprador ? { Comprador: encabezado.Comprador } : {}),
      Totales: encabezado.Totales,
    },
    DetallesItems: e32.DetallesItems,
    InformacionReferencia: {
      NCFModificado: receipt.encf,
      FechaNCFModificado: dgiiDateOf(receipt.issueDate),
      CodigoModificacion: "1",
      RazonModificacion: `Sustituido por la factura de credito fiscal ${e31}`,
    },
  };
}

/** Issues the E34 voiding `receipt` (the E32 exchanged for `e31`); a replay of its key is the same note. */
export async function issueE32CreditNote(
  env: Env,
  company: Company,
  e32: JsonDocument,
  receipt: Receipt,
  e31: string,
  now: Date,
) {
  const body = e32CreditNoteRequest(e32, receipt, e31);
  return issueReceipt(env, company, body, now, { idempotencyKey: e32CreditNoteKey(receipt.encf) });
}
