import { createApp } from "./app.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  // The outbox consumer (issuing issue) and the sweeper hang off these two entry points.
  async queue(batch: MessageBatch<unknown>, _env: Env, _ctx: ExecutionContext): Promise<void> {
    for (const message of batch.messages) message.ack();
  },
  async scheduled(_controller: ScheduledController, _env: Env, _ctx: ExecutionContext): Promise<void> {},
} satisfies ExportedHandler<Env>;
