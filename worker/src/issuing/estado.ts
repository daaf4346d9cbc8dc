import type { receipts } from "../ledger/month-tables.ts";

export type ReceiptStatus = (typeof receipts.$inferSelect)["status"];

/** The state words the API answers with (DGII's, plus Contingencia). */
export type Estado = "Aceptado" | "Aceptado Condicional" | "En Proceso" | "Rechazado" | "Contingencia" | "Anulado";

/**
 * `codigo` in our answers: DGII's result code when DGII has judged the receipt ("1" accepted,
 * "2" rejected, "3" in process, "4" conditionally accepted), "-1" while it has not reached DGII
 * (contingency), "-2" once voided with an ANECF before it was ever sent, and "0" for a resend of a receipt DGII already accepted (nothing was redone).
 */
export function estadoOf(status: ReceiptStatus, hasTrackId: boolean): { estado: Estado; codigo: string } {
  switch (status) {
    case "accepted":
      return { estado: "Aceptado", codigo: "1" };
    case "conditional":
      return { estado: "Aceptado Condicional", codigo: "4" };
    case "rejected":
      return { estado: "Rechazado", codigo: "2" };
    case "in_process":
      return { estado: "En Proceso", codigo: "3" };
    case "signed":
      return hasTrackId ? { estado: "En Proceso", codigo: "3" } : { estado: "Contingencia", codigo: "-1" };
    case "contingency":
      return { estado: "Contingencia", codigo: "-1" };
    case "voided":
      return { estado: "Anulado", codigo: "-2" };
    default: {
      const unreachable: never = status;
      throw new Error(`unknown receipt status ${String(unreachable)}`);
    }
  }
}

/** DGII result code → our status. */
export function statusFromDgii(codigo: number): ReceiptStatus {
  switch (codigo) {
    case 1:
      return "accepted";
    case 2:
      return "rejected";
    case 4:
      return "conditional";
    default:
      return "in_process";
  }
}

export const isFinal = (status: ReceiptStatus) => status === "accepted" || status === "conditional" || status === "rejected" || status === "voided";
