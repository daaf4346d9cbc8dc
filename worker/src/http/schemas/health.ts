// The service's own liveness answer.
import { z } from "@hono/zod-openapi";

export const HealthSchema = z
  .object({
    status: z.literal("ok"),
    version: z.string(),
    database: z.enum(["ok", "error"]),
  })
  .openapi("Health");
