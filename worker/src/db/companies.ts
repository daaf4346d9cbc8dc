import { eq, getTableName } from "drizzle-orm";
import { database, rowOf } from "./client.ts";
import { apiKeys, companies, type Company } from "./tables.ts";
import { subscribedEventsSql } from "./endpoint-subscriptions.ts";
import type { EventType } from "@ecf/shared/webhook-events";
import { reusedKeyLookup } from "./key-lookups.ts";

/** The issuer with this id, as D1 has it now. */
export async function companyById(env: Env, id: string): Promise<Company | undefined> {
  return database(env.DB).query.companies.findFirst({ where: eq(companies.id, id) });
}

const keys = getTableName(apiKeys);

// Written out once (drizzle would build it again on every request): the key's revocation and, for
// a company's key, its company and the events its webhook endpoints are subscribed to, in one statement.
const KEY_AND_COMPANY_SQL = `SELECT k.${apiKeys.revokedAt.name} AS key_revoked_at, ${subscribedEventsSql(`c.${companies.id.name}`)} AS subscribed_events, c.*
  FROM ${keys} AS k LEFT JOIN ${getTableName(companies)} AS c ON k.${apiKeys.ownerType.name} = 'company' AND c.${companies.id.name} = k.${apiKeys.ownerId.name}
  WHERE k.${apiKeys.id.name} = ?1`;

/** What an API key's lookup says: see keyWithCompany. */
export interface KeyLookup {
  revokedAt: string | null;
  company: Company | null;
  subscribedEvents: EventType[];
}

/**
 * An API key's revocation (null: not revoked) and, for a company's key, its company and the event
 * types its webhook endpoints (its own and its partners') are subscribed to; undefined when there
 * is no such key. Read from D1 at most KEY_LOOKUP_REUSE_MS before (db/key-lookups.ts); the
 * answer is shared, so callers never change it.
 */
export function keyWithCompany(db: D1Database, keyId: string): Promise<KeyLookup | undefined> {
  return reusedKeyLookup(keyId, async () => {
    const row = await db.prepare(KEY_AND_COMPANY_SQL).bind(keyId).first<Record<string, unknown>>();
    if (!row) return undefined;
    const company = row[companies.id.name] === null ? null : rowOf(companies, row);
    const subscribedEvents = company ? (JSON.parse(String(row.subscribed_events ?? "[]")) as EventType[]) : [];
    return { revokedAt: row.key_revoked_at as string | null, company, subscribedEvents };
  });
}
