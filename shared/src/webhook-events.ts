// The webhook events an integrator (or the console) can subscribe to: one list, read by the
// worker (what it sends and its OpenAPI) and by the console (the boxes of a new endpoint).
export const EVENT_TYPES = [
  "receipt.accepted",
  "receipt.accepted_conditionally",
  "receipt.rejected",
  "receipt.contingency",
  "receipt.delivered",
  "receipt.delivery_failed",
  "approval.received",
  "purchase.received",
  "purchase.unconfirmed",
  "certificate.expiring",
  "quota.near_limit",
  "device.key_handed_over",
  "range.low",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
