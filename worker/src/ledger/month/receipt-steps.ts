// The steps a receipt takes with DGII, as its month object is told them (`advance(id, step)`): what
// the transmission did or heard, never the columns that change. The object derives the row change
// and the follow-up work from the step (after-dgii/follow-up.ts).
import type { ReceiptChanges } from "./month-row-types.ts";

export type ReceiptStep =
  /** About to send: counted before the send, so a send that may have reached DGII is never repeated blind. */
  | { step: "sending" }
  /** DGII holds it under this track id (the send's answer, or found by consultatrackids), not judged yet. */
  | { step: "sent"; trackId: string }
  /** DGII's answer about it: its code (accepted, rejected, conditional, in process), track id and messages. */
  | { step: "judged"; codigo: number; trackId: string | null; mensajes: string }
  /** DGII refused the document itself (an error about it, not about DGII): rejected as sent. */
  | { step: "refused"; mensajes: string }
  /**
   * DGII could not be reached: in contingency, or still in process when DGII holds a track id.
   * `notTaken`: the send this attempt counted never left, or DGII answered that it did not take it
   * (503 …), so its count is taken back and the next attempt sends at once instead of asking first.
   */
  | { step: "unreachable"; mensajes: string; notTaken?: boolean };

/** What one attempt at delivering a receipt to its buyer found (after-dgii/buyer-delivery.ts). */
export type DeliveryRecord = Pick<
  ReceiptChanges,
  "deliveryStatus" | "deliveryAt" | "deliveryAttempts" | "deliveryDetail" | "deliveryArecfEstado" | "deliveryMotivo"
>;
