// Which webhook endpoints hear of an issuer's events, as SQL: read by the webhooks and, with an
// API key, by db/companies.ts (so a receipt queues no event nobody listens for).
import { getTableName } from "drizzle-orm";
import { partnerCompanies } from "./tables.ts";
import { webhookEndpoints } from "./webhooks-tables.ts";

/**
 * SQL: the endpoint `w` (an alias of webhook_endpoints) is enabled and hears of the events of the
 * issuer `companyId` (an SQL expression): its own, or a partner's that serves it.
 */
export function hearsIssuerSql(w: string, companyId: string): string {
  const t = webhookEndpoints;
  const p = partnerCompanies;
  const servedBy = `SELECT p.${p.partnerId.name} FROM ${getTableName(p)} AS p
        WHERE p.${p.companyId.name} = ${companyId}`;
  return `${w}.${t.disabledAt.name} IS NULL AND (
      (${w}.${t.ownerType.name} = 'company' AND ${w}.${t.ownerId.name} = ${companyId})
      OR (${w}.${t.ownerType.name} = 'partner' AND ${w}.${t.ownerId.name} IN
        (${servedBy})))`;
}

/**
 * SQL for the event types the endpoints hearing the issuer `companyId` (an SQL expression) are
 * subscribed to, as a JSON array: read with the request's API key so a receipt queues no event
 * nobody listens for.
 */
export function subscribedEventsSql(companyId: string): string {
  const events = `json_each(w.${webhookEndpoints.events.name})`;
  return `(SELECT json_group_array(DISTINCT e.value) FROM ${getTableName(webhookEndpoints)} AS w, ${events} AS e
    WHERE ${hearsIssuerSql("w", companyId)})`;
}
