// The month object's follow-up facet (MonthFollowUp): e-mails and events queued as tasks the
// month's alarm runs, and the webhook deliveries an owner looks at or sends again.
import type { EmailQueueing } from "../ledger/month/email-limits.ts";
import { RpcTarget } from "cloudflare:workers";
import type { MonthFollowUp } from "../ledger/month/month-rpc.ts";
import * as tasks from "../ledger/month/month-tasks.ts";
import type { WebhookEvent } from "../ledger/month/task-types.ts";
import type { MonthHost } from "./month-host.ts";

export class FollowUpFacet extends RpcTarget implements MonthFollowUp {
  constructor(private readonly host: MonthHost) {
    super();
  }

  queueEmail(companyId: string, encf: string, to: string): EmailQueueing {
    return this.host.queueEmail(companyId, encf, to);
  }
  emit(companyId: string, subject: string, event: WebhookEvent): void {
    this.host.emit(companyId, subject, event);
  }
  webhookDeliveries(endpointId: string, limit: number): tasks.WebhookDelivery[] {
    return tasks.webhookDeliveries(this.host.db, endpointId, limit);
  }
  retryDelivery(endpointId: string, id: string): boolean {
    return this.host.retryDelivery(endpointId, id);
  }
}
