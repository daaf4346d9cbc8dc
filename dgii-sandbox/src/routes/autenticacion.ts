// Autenticación: GET a seed, POST it back signed, receive a token (descripcion-tecnica, p. 7-11).
import { Hono } from "hono";
import type { SandboxContext, SandboxEnv } from "../context.ts";
import type { Environment } from "../environments.ts";
import { exchangeSeed, issueSeed } from "../seed-exchange.ts";

export function autenticacionRoutes(ctx: SandboxContext, env: Environment) {
  const app = new Hono<SandboxEnv>();
  app.get("/api/autenticacion/semilla", () => issueSeed(ctx, env, "dgii"));
  app.post("/api/autenticacion/validarsemilla", (c) => exchangeSeed(c, ctx, env, "dgii"));
  return app;
}
