// What a change to a receipt leads to, decided here and written by the month object in the same
// step as the change: DGII's acceptance starts the delivery to the buyer (an e-CF with a buyer
// RNC, of a type exchanged between taxpayers); every transition an integrator can subscribe to
// becomes an event, in the order it happened.
import type { Receipt } from "../ledger/rows.ts";
import { NOT_EXCHANGED } from "../receiving/exchanged-types.ts";
import { receiptEvent, transitionEvents, type EventType } from "../webhooks/events.ts";
import { eventTask, type NewTask } from "../ledger/task-types.ts";

const accepted = (r: Receipt) => r.status === "accepted" || r.status === "conditional";

/** True when this change is DGII's acceptance of a receipt its buyer should receive from us. */
export function startsBuyerDelivery(before: Receipt, after: Receipt): boolean {
  return (
    accepted(after) &&
    !accepted(before) &&
    !!after.rncComprador &&
    !NOT_EXCHANGED.has(after.tipoeCF) &&
    !after.deliveryStatus
  );
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
 * The events of a change. A request that read which event types the issuer's webhook endpoints
 * are subscribed to (`subscribedEvents`, with its API key) queues only those: an issuer nobody
 * listens to costs no alarm run and no read of its endpoints per receipt. (Without it, every event
 * is queued and the alarm finds who hears it.)
 */
export function transitionTasks(
  before: Receipt,
  after: Receipt,
  subscribedEvents: readonly EventType[] | undefined,
  now: Date,
): NewTask[] {
  return transitionEvents(before, after)
    .filter((type) => !subscribedEvents || subscribedEvents.includes(type))
    .map((type) => eventTask(after.companyId, `receipt:${after.encf}`, receiptEvent(type, after, now)));
}
