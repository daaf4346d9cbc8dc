// Every request to a DGII service, with what the sandbox did to it: lets a test assert how a
// client retried (how many attempts, which failed) without instrumenting the client.
import type { MiddlewareHandler } from "hono";
import type { SandboxContext, SandboxEnv } from "./context.ts";
import type { Environment } from "./environments.ts";

export interface RequestLogEntry {
  method: string;
  env: Environment;
  /** DGII service: the path segment after the environment. */
  service: string;
  path: string;
  /** HTTP status sent, or null when the connection was reset. */
  status: number | null;
  /** The fault that shaped the answer: "down", "reset", "flaky", "slow", or null. */
  fault: string | null;
  at: string;
}

/** Oldest entries are dropped beyond this, so a long benchmark cannot exhaust memory. */
const MAX_ENTRIES = 5000;

export function requestLog(ctx: SandboxContext, env: Environment): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const entry: RequestLogEntry = {
      method: c.req.method,
      env,
      service: url.pathname.split("/")[2]?.toLowerCase() ?? "",
      path: url.pathname + url.search,
      status: null,
      fault: null,
      at: ctx.now().toISOString(),
    };
    ctx.state.requests.push(entry);
    if (ctx.state.requests.length > MAX_ENTRIES) ctx.state.requests.splice(0, ctx.state.requests.length - MAX_ENTRIES);
    try {
      await next();
    } finally {
      entry.fault = c.get("fault") ?? null;
      entry.status = entry.fault === "reset" ? null : c.res.status;
    }
  };
}
