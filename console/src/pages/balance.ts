// What a receipt still allows a credit note to take: its total and the E33/E34 DGII accepted
// against it (GET …/notes), through the shared availableBalance (DGII's rule, formato-ecf
// InformacionReferencia note 30): the same function the API enforces when the note is issued.
import type { components } from "@ecf/client";
import { type AcceptedNote, availableBalance, type Balance, type ProposedNote } from "@ecf/shared/credit-notes";
import { money } from "@ecf/ui-kit";
import { api } from "../api.ts";

export type ReceiptNotes = components["schemas"]["ReceiptNotes"];

export async function notesOf(encf: string): Promise<ReceiptNotes> {
  const { data } = await api.GET("/fe/recepcion/ecf/{encf}/notes", { params: { path: { encf } } });
  return data!;
}

export function balanceOf(receipt: ReceiptNotes, proposed?: ProposedNote): Balance {
  const accepted: AcceptedNote[] = receipt.notes.map((n) => ({
    tipo: n.tipoeCF,
    codigoModificacion: n.codigoModificacion,
    montoTotal: n.montoTotal,
  }));
  return availableBalance(receipt.montoTotal, accepted, proposed);
}

/** DGII's rule as the owner reads it. */
export const BALANCE_RULE =
  "Regla de la DGII: una nota de crédito no puede pasar del saldo disponible (total + notas de débito − " +
  "notas de crédito aceptadas); después de una anulación (código 1) no queda saldo, y no se anula por " +
  "completo (código 1) un comprobante que ya tiene una nota de crédito parcial (código 3).";

export function balanceText(receipt: ReceiptNotes, balance: Balance): string {
  const parts =
    `total ${money(receipt.montoTotal)}, notas de débito ${money(balance.debited)}, ` +
    `notas de crédito ${money(balance.credited)}`;
  return balance.annulled
    ? `Anulado por una nota de crédito: saldo disponible ${money("0")} (${parts}).`
    : `Saldo disponible ${money(balance.available)} (${parts}).`;
}

/** Why a proposed note is refused, in the words the API uses for the same reason. */
export function refusalText(balance: Balance): string | undefined {
  const verdict = balance.proposal;
  if (!verdict || verdict.ok) return undefined;
  switch (verdict.reason) {
    case "already_annulled":
      return "El comprobante modificado ya fue anulado por una nota de crédito.";
    case "annulment_after_partial_credit":
      return "No procede una anulación total (código 1) después de una nota de crédito parcial (código 3).";
    case "exceeds_available":
      return `El crédito excede lo que resta del comprobante modificado (${money(balance.available)}).`;
    default:
      return "El monto de la nota no es válido para su código de modificación.";
  }
}
