// The events of a receipt's life (and of the issuer's) that integrators can subscribe to, and the
// payload each carries: `{ type, timestamp, data }`, data being the issuer's RNC plus the same
// fields as the GET of that resource.
import { EVENT_TYPES, type EventType } from "@ecf/shared/webhook-events";
import { receiptAnswerOf } from "../answers/receipt.ts";
import type { Purchase, Receipt } from "../ledger/rows.ts";
import type { WebhookEvent } from "../ledger/month/task-types.ts";
import { ESTADO_DGII_OF } from "../ledger/month/estado-dgii.ts";

// The list itself is shared with the console.
export { EVENT_TYPES, type EventType };

/** The issuer's RNC, from the archive key every receipt and purchase has (`{rnc}/…`). */
const rncOf = (xmlKey: string) => xmlKey.split("/")[0] ?? "";

export function receiptEvent(type: EventType, receipt: Receipt, now = new Date()): WebhookEvent {
  return {
    type,
    timestamp: now.toISOString(),
    data: { rncEmisor: rncOf(receipt.xmlKey), ...receiptAnswerOf(receipt).body },
  };
}

export function purchaseEvent(
  purchase: Purchase,
  now = new Date(),
  type: "purchase.received" | "purchase.unconfirmed" = "purchase.received",
): WebhookEvent {
  // The fields the event documents (routes/webhooks.ts), not the ledger's row: its storage keys,
  // figures and classification are not the subscriber's business.
  const data = {
    rncComprador: rncOf(purchase.xmlKey),
    id: purchase.id,
    rncEmisor: purchase.rncEmisor,
    razonSocialEmisor: purchase.razonSocialEmisor,
    encf: purchase.encf,
    tipoeCF: purchase.tipoeCF,
    fechaEmision: purchase.issueDate,
    montoTotal: purchase.montoTotal,
    totalITBIS: purchase.totalItbis,
    arecfEstado: purchase.arecfEstado,
    fechaHoraAcuseRecibo: purchase.fechaHoraAcuseRecibo,
    estadoDgii: ESTADO_DGII_OF[purchase.dgiiStatus],
  };
  return { type, timestamp: now.toISOString(), data };
}
