import { Hono } from "hono";

/**
 * The local stand-in for DGII's web services. It is a real HTTP server so the worker's DGII
 * client is exercised over the wire exactly as in production; only the host differs.
 */
export function createSandboxApp() {
  const app = new Hono();
  app.get("/", (c) =>
    c.json({
      service: "dgii-sandbox",
      description: "Local stand-in for DGII's e-CF web services",
      environments: ["testecf", "certecf", "ecf"],
    }),
  );
  return app;
}
