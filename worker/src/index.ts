import { createApp } from "./app.ts";
import { consumeOutbox, sweepOutbox, type OutboxMessage } from "./issuing/outbox.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  /** The outbox: receipts in contingency or in process, retried with back-off until DGII decides. */
  async queue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
    await consumeOutbox(batch as MessageBatch<OutboxMessage>, env);
  },
  /** The sweeper, for anything the queue did not finish. */
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(sweepOutbox(env));
  },
} satisfies ExportedHandler<Env>;
