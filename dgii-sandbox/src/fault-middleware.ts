// Applies the active faults to every request for a DGII service (not to /__sandbox, not to the
// status service, which reports them instead).
import type { MiddlewareHandler } from "hono";
import type { SandboxContext, SandboxEnv } from "./context.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function faultMiddleware(ctx: SandboxContext): MiddlewareHandler<SandboxEnv> {
  return async (c, next) => {
    const service = new URL(c.req.url).pathname.split("/")[2]?.toLowerCase() ?? "";
    const action = ctx.faults.decide(service);
    if (action.delayMs > 0) await sleep(action.delayMs);
    if (action.kind === "pass") {
      if (action.delayMs > 0) c.set("fault", "slow");
      return next();
    }
    c.set("fault", action.reset ? "reset" : action.cause);
    if (action.reset) {
      const socket = c.env?.incoming?.socket;
      // Over real HTTP the client sees ECONNRESET / "socket hang up"; under app.request() there
      // is no socket, so the closest equivalent is a thrown network error.
      if (socket) {
        socket.resetAndDestroy();
        return new Response(null, { status: action.status });
      }
      throw new TypeError("sandbox fault: connection reset");
    }
    return c.body("Service Unavailable", action.status as 503, {
      "content-type": "text/html; charset=utf-8",
      "retry-after": "1",
    });
  };
}
