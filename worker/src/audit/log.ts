import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { auditLog } from "../db/schema.ts";
import type { AppEnv } from "../env.ts";

/**
 * Records every refused or failed request (any problem response, and the failures a handler
 * reports as `auditEvent`, such as a DGII rejection) in the audit log, attributed to the issuer
 * when one was resolved. Written after the response, never delaying or failing it.
 */
export const auditProblems = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const problem = c.get("problem") ?? c.get("auditEvent");
  if (!problem) return;
  const entry = {
    companyId: c.get("tenant")?.id ?? null,
    actor: c.get("principal")?.keyId ?? (c.req.path.startsWith("/admin") ? "admin" : null),
    action: `${c.req.method} ${c.req.path}`,
    code: problem.code,
    status: c.res.status,
    detail: problem.detail.slice(0, 1000),
    requestId: c.get("requestId") ?? "unknown",
  };
  const write = database(c.env.DB)
    .insert(auditLog)
    .values(entry)
    .then(() => undefined)
    .catch((error: unknown) => console.error("audit log write failed", error));
  try {
    c.executionCtx.waitUntil(write);
  } catch {
    await write; // no execution context (e.g. app.request in tests)
  }
});
