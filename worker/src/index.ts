import { createApp } from "./app.ts";

export { IssuerLedger } from "./objects/issuer-ledger.ts";
export { ReceiptMonth } from "./objects/receipt-month.ts";

const app = createApp();

// No queue and no cron: every retry is a ReceiptMonth object's alarm (worker/src/objects, after-dgii/month-alarm.ts).
export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
