// What a receipt's step leads to, decided here from the step and written by the month object in
// the same synchronous step: the row change, and the follow-up work. DGII's acceptance starts the
// delivery to the buyer (an e-CF with a buyer RNC, of a type exchanged between taxpayers); every
// transition an integrator can subscribe to becomes an event, in the order it happened.
import { statusFromDgii, type ReceiptStatus } from "../ledger/month/estado.ts";
import type { DeliveryRecord, ReceiptStep } from "../ledger/month/receipt-steps.ts";
import type { Receipt, ReceiptChanges } from "../ledger/rows.ts";
import { NOT_EXCHANGED } from "../receiving/exchanged-types.ts";
import { receiptEvent, type EventType } from "../webhooks/events.ts";
import { eventTask, type NewTask } from "../ledger/month/task-types.ts";

/** A step's row change, the events it is, and whether it starts the delivery to the buyer. */
export interface StepOutcome {
  changes: ReceiptChanges;
  events: EventType[];
  startsDelivery: boolean;
}

const accepted = (status: ReceiptStatus) => status === "accepted" || status === "conditional";

/** The event of a receipt reaching a status DGII decides (none for the statuses in between). */
const STATUS_EVENTS: Partial<Record<ReceiptStatus, EventType>> = {
  accepted: "receipt.accepted",
  conditional: "receipt.accepted_conditionally",
  rejected: "receipt.rejected",
  contingency: "receipt.contingency",
};

/** The events of `receipt` (as it is now) reaching `status`. */
function reaching(receipt: Receipt, status: ReceiptStatus): EventType[] {
  const event = status === receipt.status ? undefined : STATUS_EVENTS[status];
  return event ? [event] : [];
}

/** A verdict: DGII's acceptance of a receipt its buyer should receive from us starts its delivery. */
function judged(receipt: Receipt, status: ReceiptStatus, changes: ReceiptChanges): StepOutcome {
  const startsDelivery =
    accepted(status) &&
    !accepted(receipt.status) &&
    !!receipt.rncComprador &&
    !NOT_EXCHANGED.has(receipt.tipoeCF) &&
    !receipt.deliveryStatus;
  return {
    changes: { ...changes, status, ...(startsDelivery ? { deliveryStatus: "pendiente" as const } : {}) },
    events: reaching(receipt, status),
    startsDelivery,
  };
}

/** What `step` does to `receipt` (the row as it is before the step). */
export function outcomeOf(receipt: Receipt, step: ReceiptStep): StepOutcome {
  switch (step.step) {
    case "sending":
      return { changes: { sendAttempts: receipt.sendAttempts + 1 }, events: [], startsDelivery: false };
    case "sent":
      return { changes: { trackId: step.trackId, status: "in_process" }, events: [], startsDelivery: false };
    case "judged":
      return judged(receipt, statusFromDgii(step.codigo), {
        trackId: step.trackId ?? receipt.trackId,
        dgiiCodigo: String(step.codigo),
        dgiiMensajes: step.mensajes,
      });
    case "refused":
      return judged(receipt, "rejected", { dgiiCodigo: "2", dgiiMensajes: step.mensajes });
    case "unreachable": {
      const status: ReceiptStatus = receipt.trackId ? "in_process" : "contingency";
      const uncounted = step.notTaken ? { sendAttempts: Math.max(0, receipt.sendAttempts - 1) } : {};
      return {
        changes: { status, dgiiMensajes: step.mensajes, ...uncounted },
        events: reaching(receipt, status),
        startsDelivery: false,
      };
    }
    default: {
      const _: never = step;
      throw new Error(`unknown receipt step ${JSON.stringify(_)}`);
    }
  }
}

/** The events of one attempt at the buyer's delivery: delivered, or not (refused, or given up). */
export function deliveryEvents(receipt: Receipt, record: DeliveryRecord): EventType[] {
  if (!record.deliveryStatus || record.deliveryStatus === receipt.deliveryStatus) return [];
  if (record.deliveryStatus === "entregado") return ["receipt.delivered"];
  if (record.deliveryStatus === "no_recibido" || record.deliveryStatus === "fallido")
    return ["receipt.delivery_failed"];
  return [];
}

/** The delivery of `receipt` to its buyer, one at a time per e-NCF. */
export function buyerDeliveryTask(receipt: Receipt): NewTask {
  return {
    kind: "buyer_delivery",
    orderingKey: `delivery:${receipt.encf}`,
    payload: { companyId: receipt.companyId, encf: receipt.encf },
  };
}

/**
 * The events of `receipt` as tasks. A request that read which event types the issuer's webhook
 * endpoints are subscribed to (`subscribedEvents`, with its API key) queues only those: an issuer
 * nobody listens to costs no alarm run and no read of its endpoints per receipt. (Without it,
 * every event is queued and the alarm finds who hears it.)
 */
export function eventTasks(
  receipt: Receipt,
  events: readonly EventType[],
  subscribedEvents: readonly EventType[] | undefined,
  now: Date,
): NewTask[] {
  return events
    .filter((type) => !subscribedEvents || subscribedEvents.includes(type))
    .map((type) => eventTask(receipt.companyId, `receipt:${receipt.encf}`, receiptEvent(type, receipt, now)));
}
