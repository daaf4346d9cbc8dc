import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";

/**
 * Reads to its end whatever a request's body still holds once the answer is written. A refusal
 * (413 on its Content-Length, 401 before the route parses anything) answers without reading the
 * body, and workerd then leaves the connection it came on unfit for the next request: behind
 * wrangler's dev proxy (`npm start`) that next request, on the proxy's pooled connection to the
 * worker, fails, and a POST gets "503 Your worker restarted mid-request", which to a client of this
 * API means contingency. wrangler wraps a worker it bundles itself in the same drain; the split
 * build it runs with --no-bundle gets none, so the worker does it for every route, here. A client
 * that sent the body has paid for it already; the chunks are dropped as they come.
 */
export const drainUnreadBody = createMiddleware<AppEnv>(async (c, next) => {
  // The request as it came: a body limit may put a counting copy in its place.
  const request = c.req.raw;
  await next();
  const body = request.body;
  if (!body || request.bodyUsed || body.locked) return;
  await body.pipeTo(new WritableStream()).catch(() => {});
});
