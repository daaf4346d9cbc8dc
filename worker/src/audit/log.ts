import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { auditLog, companies } from "../db/schema.ts";
import type { AppEnv } from "../env.ts";

export type AuditEntry = typeof auditLog.$inferInsert;

/**
 * Records a failure that no request is waiting for (the outbox queue or the cron sweeper found
 * DGII rejecting a receipt): the issuer sees it in its audit log like a refused request. Never
 * throws: a failed audit write must not undo the work it describes.
 */
export async function recordBackgroundFailure(d1: D1Database, entry: AuditEntry): Promise<void> {
  await database(d1)
    .insert(auditLog)
    .values({ ...entry, detail: entry.detail?.slice(0, 1000) ?? null })
    .catch((error: unknown) => console.error("audit log write failed", error));
}

/**
 * The issuer a refused request concerns. Resolved: the tenant. Refused while resolving it (a caller
 * with a valid token that does not serve the issuer it names, an inactive issuer, the wrong key
 * kind): the issuer named in X-RNC-Emisor if it exists, else the company that owns the key, so the
 * issuer sees the attempts in /reports/errores. Anonymous requests (no valid token) name nobody:
 * anyone could write any RNC in the header.
 */
async function concernedIssuer(c: Context<AppEnv>): Promise<string | null> {
  const tenant = c.get("tenant");
  if (tenant) return tenant.id;
  const principal = c.get("principal");
  if (!principal) return null;
  const named = c.req.header("X-RNC-Emisor")?.trim();
  if (named) {
    const row = await database(c.env.DB).query.companies.findFirst({ columns: { id: true }, where: eq(companies.rnc, named) });
    if (row) return row.id;
  }
  return principal.ownerType === "company" ? principal.ownerId : null;
}

/**
 * Records every refused or failed request (any problem response, and the failures a handler
 * reports as `auditEvent`, such as a DGII rejection) in the audit log, attributed to the issuer it
 * concerns. Written after the response, never delaying or failing it.
 */
export const auditProblems = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const problem = c.get("problem") ?? c.get("auditEvent");
  if (!problem) return;
  const entry = {
    actor: c.get("principal")?.keyId ?? (c.req.path.startsWith("/admin") ? "admin" : null),
    action: `${c.req.method} ${c.req.path}`,
    code: problem.code,
    status: c.res.status,
    detail: problem.detail.slice(0, 1000),
    requestId: c.get("requestId") ?? "unknown",
  };
  const write = concernedIssuer(c)
    .then((companyId) => database(c.env.DB).insert(auditLog).values({ ...entry, companyId }))
    .then(() => undefined)
    .catch((error: unknown) => console.error("audit log write failed", error));
  try {
    c.executionCtx.waitUntil(write);
  } catch {
    await write; // no execution context (e.g. app.request in tests)
  }
});
