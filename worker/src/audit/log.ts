import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { companies } from "../db/tables.ts";
import type { DgiiMessage } from "../dgii/errors.ts";
import type { AppEnv } from "../env.ts";
import { writeAudit } from "../ledger/client.ts";

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
    const row = await database(c.env.DB).query.companies.findFirst({
      columns: { id: true },
      where: eq(companies.rnc, named),
    });
    if (row) return row.id;
  }
  return principal.ownerType === "company" ? principal.ownerId : null;
}

/** What a request's DGII outcome writes in the audit log: a rejection, or a receipt left in contingency. */
export function dgiiOutcomeEvent(
  estado: "Rechazado" | "Contingencia",
  encf: string,
  mensajes: readonly DgiiMessage[],
): { code: string; detail: string } {
  const reasons = mensajes.map((m) => (m.codigo ? `${m.codigo}: ${m.valor}` : m.valor)).join("; ");
  return { code: estado === "Rechazado" ? "dgii_rejected" : "dgii_unavailable", detail: `${encf}: ${reasons}` };
}

/** The audit entry of this request for `event`, answered with HTTP `status`. */
export function requestAuditEntry(c: Context<AppEnv>, event: { code: string; detail: string }, status: number) {
  return {
    actor: c.get("principal")?.keyId ?? (c.req.path.startsWith("/admin") ? "admin" : null),
    action: `${c.req.method} ${c.req.path}`,
    code: event.code,
    status,
    detail: event.detail.slice(0, 1000),
    requestId: c.get("requestId") ?? "unknown",
  };
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
  const entry = requestAuditEntry(c, problem, c.res.status);
  // A request that names no issuer has no ledger to be recorded in (it is only logged).
  const write = concernedIssuer(c)
    .then((companyId) =>
      companyId ? writeAudit(c.env, companyId, entry) : console.warn("refused request with no issuer", entry),
    )
    .catch((error: unknown) => console.error("audit log write failed", error));
  try {
    c.executionCtx.waitUntil(write);
  } catch {
    await write; // no execution context (e.g. app.request in tests)
  }
});
