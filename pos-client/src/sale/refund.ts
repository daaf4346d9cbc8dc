// Returns (E34 credit notes) against an earlier receipt of this till: never more than what is
// still open on it (the shared package's availableBalance over the credit notes already issued
// here), and never against a receipt DGII rejected (it does not exist for DGII).
import { availableBalance, type AcceptedNote } from "@ecf/shared/credit-notes";
import { money } from "@ecf/ui-kit";
import type { PosDatabase, Sale } from "../db.ts";

export type RefundVerdict = { ok: true; available: string } | { ok: false; message: string };

/** Estados in which a receipt does not stand (or, for a note, does not count against the balance). */
const VOID = new Set(["Rechazado", "Anulado"]);

/** May a credit note (code 3) of `amount` be issued against `original`? */
export async function judgeRefund(db: PosDatabase, original: Sale, amount: string): Promise<RefundVerdict> {
  if (!original.encf || original.encf.startsWith("E34"))
    return { ok: false, message: "Solo se acredita una factura, no una nota de crédito." };
  if (VOID.has(original.estado ?? ""))
    return { ok: false, message: `${original.encf} fue ${original.estado?.toLowerCase()}: no se puede acreditar.` };
  // Every note this till issued against it counts, accepted or still on its way (two offline
  // returns must not both pass); a rejected note credited nothing.
  const notes = await db.sales.filter((s) => s.modifies === original.encf && !VOID.has(s.estado ?? "")).toArray();
  const accepted: AcceptedNote[] = notes.map((n) => ({
    tipo: "34",
    codigoModificacion: "3",
    montoTotal: n.montoTotal ?? "0",
  }));
  const balance = availableBalance(original.montoTotal ?? "0", accepted, {
    tipo: "34",
    codigoModificacion: "3",
    montoTotal: amount,
  });
  if (balance.proposal?.ok) return { ok: true, available: balance.available };
  return {
    ok: false,
    message:
      balance.available === "0.00"
        ? `${original.encf} ya fue acreditada por completo.`
        : `La devolución (${money(amount)}) excede el saldo disponible de ${original.encf} ` +
          `(${money(balance.available)}).`,
  };
}
