import type { receipts } from "./month-tables.ts";

export type ReceiptStatus = (typeof receipts.$inferSelect)["status"];
/** How the ledger stores a receipt's state (API 1.7 answered these in /reports/encf). */
export const RECEIPT_STATUSES = [
  "signed",
  "in_process",
  "accepted",
  "conditional",
  "rejected",
  "contingency",
  "voided",
] as const satisfies readonly ReceiptStatus[];

/**
 * A receipt's state as the API names it, everywhere (answers, reports, device routes, webhooks):
 * DGII's words from its result query (Aceptado, Rechazado, En Proceso, Aceptado Condicional),
 * plus Contingencia and Anulado for a receipt DGII has not seen (not yet, or never: voided).
 */
export const ESTADOS = [
  "Aceptado",
  "Aceptado Condicional",
  "En Proceso",
  "Rechazado",
  "Contingencia",
  "Anulado",
] as const;
export type Estado = (typeof ESTADOS)[number];

/**
 * A commercial approval (ACECF) as the API names it: DGII's words for the ACECF's Estado
 * (formato ACECF field 7: 1 "e-CF Aceptado", 2 "e-CF Rechazado"), the same as a receipt's.
 */
export const APPROVAL_ESTADOS = ["Aceptado", "Rechazado"] as const;
export type ApprovalEstado = (typeof APPROVAL_ESTADOS)[number];
/** How the ledger stores a commercial approval. */
export type ApprovalStatus = "accepted" | "rejected";

export const approvalEstadoOf = (status: ApprovalStatus): ApprovalEstado =>
  status === "accepted" ? "Aceptado" : "Rechazado";
export const approvalStatusOf = (estado: ApprovalEstado): ApprovalStatus =>
  estado === "Aceptado" ? "accepted" : "rejected";

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

export const isFinal = (status: ReceiptStatus) =>
  status === "accepted" || status === "conditional" || status === "rejected" || status === "voided";

/** How the ledger stores a receipt's delivery to its buyer. */
export type DeliveryStatus = NonNullable<(typeof receipts.$inferSelect)["deliveryStatus"]>;
/**
 * A delivery to the buyer as the API names it (`buyerDelivery.state`), one closed set in one
 * language: the buyer's answer in DGII's words, the ARECF's Estado (formato ARECF: 0 "e-CF
 * Recibido", 1 "e-CF No Recibido"; a duplicate, motivo 3, is Recibido: the buyer had it already),
 * and the delivery's own states beside them: not answered yet, the buyer is no electronic receiver
 * in DGII's directory, or no answer within the 72 hours of retries.
 */
export const BUYER_DELIVERY_STATES = ["Pendiente", "Recibido", "No Recibido", "No Receptor", "Fallido"] as const;
export type BuyerDeliveryState = (typeof BUYER_DELIVERY_STATES)[number];
const BUYER_DELIVERY_STATE_OF = {
  pendiente: "Pendiente",
  entregado: "Recibido",
  no_recibido: "No Recibido",
  no_receptor: "No Receptor",
  fallido: "Fallido",
} as const satisfies Record<DeliveryStatus, BuyerDeliveryState>;
export const buyerDeliveryStateOf = (status: DeliveryStatus): BuyerDeliveryState => BUYER_DELIVERY_STATE_OF[status];
