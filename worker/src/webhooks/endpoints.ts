// Webhook endpoints in the D1 directory: registered by a company (its own receipts) or by a
// partner (every issuer it serves), with the signing secret sealed at rest.
import { and, eq, getTableName, isNull } from "drizzle-orm";
import { openPrivateKey, sealPrivateKey } from "../certificates/vault.ts";
import { forgetKeyLookups } from "../db/key-lookups.ts";
import { database, rowOf } from "../db/client.ts";
import { webhookEndpoints } from "../db/webhooks-tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { hearsIssuerSql } from "../db/endpoint-subscriptions.ts";
import { outboundPolicy, outboundUrlProblem } from "../outbound/url-policy.ts";
import type { EventType } from "@ecf/shared/webhook-events";
import { newSecret } from "./signing.ts";

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export interface Owner {
  ownerType: "company" | "partner";
  ownerId: string;
}

/** The endpoint as the API shows it (never the secret, except once at creation). */
export function endpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: JSON.parse(endpoint.events) as EventType[],
    scope: endpoint.ownerType === "partner" ? ("partner" as const) : ("company" as const),
    disabledAt: endpoint.disabledAt,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
  };
}

/** Where deliveries may go: the outbound URL policy (outbound/url-policy.ts), the same for every outbound call. */
export function urlProblem(env: Env, raw: string): string | null {
  return outboundUrlProblem(raw, outboundPolicy(env));
}

export async function createEndpoint(env: Env, owner: Owner, url: string, events: EventType[]) {
  const problem = urlProblem(env, url);
  if (problem)
    throw new ApiProblem("validation_failed", {
      detail: `The webhook URL is refused: ${problem}.`,
      errors: [{ path: "/url", code: "url_not_allowed", message: problem }],
    });
  const id = `wh_${crypto.randomUUID().replace(/-/g, "")}`;
  const { secret, bytes } = newSecret();
  const [row] = await database(env.DB)
    .insert(webhookEndpoints)
    .values({
      id,
      ...owner,
      url,
      events: JSON.stringify([...new Set(events)]),
      secretSealed: await sealPrivateKey(bytes, env.MASTER_KEY, id),
    })
    .returning();
  forgetKeyLookups();
  return { ...endpointView(row!), secret };
}

export async function listEndpoints(env: Env, owner: Owner): Promise<WebhookEndpoint[]> {
  return database(env.DB).query.webhookEndpoints.findMany({
    where: and(eq(webhookEndpoints.ownerType, owner.ownerType), eq(webhookEndpoints.ownerId, owner.ownerId)),
    orderBy: webhookEndpoints.createdAt,
  });
}

/** One endpoint of this owner, or a 404. */
export async function ownedEndpoint(env: Env, owner: Owner, id: string): Promise<WebhookEndpoint> {
  const row = await database(env.DB).query.webhookEndpoints.findFirst({
    where: and(
      eq(webhookEndpoints.id, id),
      eq(webhookEndpoints.ownerType, owner.ownerType),
      eq(webhookEndpoints.ownerId, owner.ownerId),
    ),
  });
  if (!row) throw new ApiProblem("not_found", { detail: `No webhook ${id}.` });
  return row;
}

export async function deleteEndpoint(env: Env, owner: Owner, id: string): Promise<void> {
  await ownedEndpoint(env, owner, id);
  await database(env.DB).delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  forgetKeyLookups();
}

const ISSUER_ENDPOINTS_SQL = `SELECT w.* FROM ${getTableName(webhookEndpoints)} AS w WHERE ${hearsIssuerSql("w", "?1")}`;

/** The enabled endpoints that hear of an issuer's events: its own and those of partners serving it, in one query. */
export async function issuerEndpoints(env: Env, companyId: string): Promise<WebhookEndpoint[]> {
  const { results } = await env.DB.prepare(ISSUER_ENDPOINTS_SQL).bind(companyId).all<Record<string, unknown>>();
  return results.map((row) => rowOf(webhookEndpoints, row));
}

/** Those of `endpoints` subscribed to `type`. */
export function subscribedTo(endpoints: WebhookEndpoint[], type: EventType): WebhookEndpoint[] {
  return endpoints.filter((r) => (JSON.parse(r.events) as string[]).includes(type));
}

export async function endpointById(env: Env, id: string): Promise<WebhookEndpoint | undefined> {
  return database(env.DB).query.webhookEndpoints.findFirst({ where: eq(webhookEndpoints.id, id) });
}

export function endpointSecret(env: Env, endpoint: WebhookEndpoint): Promise<Uint8Array> {
  return openPrivateKey(endpoint.secretSealed, env.MASTER_KEY, endpoint.id);
}

/** After 3 days of failed deliveries: nothing more is sent; the issuer sees it in /company/me. */
export async function disableEndpoint(env: Env, id: string, reason: string): Promise<void> {
  await database(env.DB)
    .update(webhookEndpoints)
    .set({ disabledAt: new Date().toISOString(), disabledReason: reason.slice(0, 500) })
    .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.disabledAt)));
  forgetKeyLookups();
}

/** Disabled endpoints that deliver this issuer's events (for its /company/me warnings). */
export async function disabledEndpointsOf(env: Env, companyId: string): Promise<WebhookEndpoint[]> {
  const rows = await listEndpoints(env, { ownerType: "company", ownerId: companyId });
  return rows.filter((r) => r.disabledAt);
}
