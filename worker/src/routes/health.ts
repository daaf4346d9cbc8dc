import { createRoute } from "@hono/zod-openapi";
import { newRouter } from "../http/router.ts";
import { HealthSchema } from "../http/schemas/health.ts";
import { API_VERSION } from "../version.ts";

export const healthRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/health",
    tags: ["Service"],
    summary: "Liveness and database check",
    description:
      'Answers 200 while the worker runs, with the API version and whether D1 answered a query; for monitors and load balancers, without a token. A failing database shows as `database: "error"`, not as a failed request.',
    responses: { 200: { description: "The service is up", content: { "application/json": { schema: HealthSchema } } } },
  }),
  async (c) => {
    let database: "ok" | "error" = "ok";
    try {
      await c.env.DB.prepare("select 1").first();
    } catch {
      database = "error";
    }
    return c.json({ status: "ok" as const, version: API_VERSION, database }, 200);
  },
);
