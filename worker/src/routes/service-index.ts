import { createRoute } from "@hono/zod-openapi";
import { newRouter } from "../http/router.ts";
import { ServiceIndexSchema } from "../http/schemas/service-index.ts";
import { API_VERSION } from "../version.ts";

/** GET /: what a person or a tool landing on the server's root needs, instead of a 404 problem. */
export const serviceIndexRoutes = newRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    tags: ["Service"],
    summary: "Where everything is: the API reference, the contract, the apps",
    description:
      "A JSON index of the service: its API version and the absolute URLs of the reference (/docs), the OpenAPI document, the liveness check, the console and the till. No token needed.",
    responses: {
      200: { description: "The index", content: { "application/json": { schema: ServiceIndexSchema } } },
    },
  }),
  (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json(
      {
        name: "ecf-edge" as const,
        description: "Electronic tax receipts (e-CF) for the Dominican Republic: issue, receive, approve, report.",
        version: API_VERSION,
        links: {
          docs: `${origin}/docs`,
          openapi: `${origin}/openapi.json`,
          health: `${origin}/health`,
          console: `${origin}/app/`,
          pos: `${origin}/pos/`,
        },
      },
      200,
    );
  },
);
