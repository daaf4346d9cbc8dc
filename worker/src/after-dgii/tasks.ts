// The month object's follow-up work on a receipt once DGII has spoken (and on purchases): each
// task is a row written in the same step as the change that causes it, run by the object's alarm
// with back-off until it succeeds or its deadline passes. Tasks with the same ordering key run
// strictly one after another (a receipt's events reach an endpoint in the order they happened).
import { subscribedTo } from "../webhooks/endpoints.ts";
import { deliverWebhook } from "../webhooks/deliver.ts";
import { deliverToBuyer } from "./buyer-delivery.ts";
import { sendReceiptEmail } from "./email.ts";
import type {
  BuyerDeliveryPayload,
  CreditNotePayload,
  EmailPayload,
  EventPayload,
  Task,
  TaskContext,
  TaskOutcome,
  WebhookPayload,
} from "../ledger/month/task-types.ts";

export async function runTask(task: Task, context: TaskContext): Promise<TaskOutcome> {
  const pastDeadline = context.now.toISOString() >= task.deadline;
  switch (task.kind) {
    case "event": {
      const { companyId, subject, event } = JSON.parse(task.payload) as EventPayload;
      const endpoints = subscribedTo(await context.issuerEndpoints(companyId), event.type);
      return {
        status: "done",
        result: { endpoints: endpoints.map((e) => e.id) },
        then: endpoints.map((endpoint) => ({
          id: `msg_${crypto.randomUUID().replace(/-/g, "")}`,
          kind: "webhook",
          orderingKey: `${endpoint.id}:${subject}`,
          payload: { companyId, endpointId: endpoint.id, event } satisfies WebhookPayload,
        })),
      };
    }
    case "webhook":
      return deliverWebhook(
        context.env,
        task.id,
        JSON.parse(task.payload) as WebhookPayload,
        pastDeadline,
        context.now,
      );
    case "buyer_delivery":
      return deliverToBuyer(JSON.parse(task.payload) as BuyerDeliveryPayload, context, pastDeadline);
    case "email":
      return sendReceiptEmail(JSON.parse(task.payload) as EmailPayload, context, pastDeadline);
    case "credit_note": {
      // Loaded on the first such task: it issues a receipt, which the other kinds never do.
      const { issueOwedCreditNote } = await import("../public-receipt/e32-credit-note.ts");
      return issueOwedCreditNote(JSON.parse(task.payload) as CreditNotePayload, context, pastDeadline);
    }
    default: {
      const unreachable: never = task.kind;
      throw new Error(`unknown task kind ${String(unreachable)}`);
    }
  }
}
