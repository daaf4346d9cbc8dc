// The service's front door: what GET / answers, a JSON index of where everything is.
import { z } from "@hono/zod-openapi";

export const ServiceIndexSchema = z
  .object({
    name: z.literal("ecf-edge"),
    description: z.string(),
    version: z.string().openapi({ description: "The API's semantic version (also the API-Version header)" }),
    links: z
      .object({
        docs: z.string().openapi({ description: "The API reference, read from openapi" }),
        openapi: z.string().openapi({ description: "The OpenAPI 3.1 document" }),
        health: z.string(),
        console: z.string().openapi({ description: "The owners' web app" }),
        pos: z.string().openapi({ description: "The till (a PWA)" }),
      })
      .openapi({ description: "Absolute URLs on this server" }),
  })
  .openapi("ServiceIndex");
