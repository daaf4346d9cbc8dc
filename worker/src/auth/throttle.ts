import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { loginThrottle } from "../db/tables.ts";

/**
 * Failed logins allowed per window. With a known client address (auth/client-address.ts): per key
 * from that address, and per address over all keys; both are that address's own failures, so they
 * are checked before the secret. Without one, per key from anywhere: a verdict made of other
 * callers' failures, so it is given only after the secret proved wrong (the right secret is never
 * locked out by someone else; the secret's 256 random bits make online guessing hopeless anyway).
 */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_KEY_AND_ADDRESS = 5;
export const MAX_FAILURES_PER_ADDRESS = 30;
export const MAX_FAILURES_PER_KEY = 5;

export interface ThrottleScope {
  scope: string;
  limit: number;
}

/** The scopes a login's verdict rests on: `own` may refuse before the secret, `shared` only after it. */
export function loginScopes(
  keyHash: string,
  address: string | null,
): { own: ThrottleScope[]; shared: ThrottleScope[] } {
  if (address === null) return { own: [], shared: [{ scope: `key:${keyHash}`, limit: MAX_FAILURES_PER_KEY }] };
  return {
    own: [
      { scope: `key-ip:${keyHash}:${address}`, limit: MAX_FAILURES_PER_KEY_AND_ADDRESS },
      { scope: `ip:${address}`, limit: MAX_FAILURES_PER_ADDRESS },
    ],
    shared: [],
  };
}

/**
 * Wrong pairing codes allowed per window: per source address (refused before the code is looked
 * at), and over all sources (a verdict made of others' failures, so given only to a wrong code: a
 * right code always pairs). A code is 8 symbols of 30 and lives 15 minutes, so the global cap keeps
 * an online guesser's chance of hitting any live code negligible.
 */
export const MAX_PAIRING_FAILURES_PER_ADDRESS = 10;
export const MAX_PAIRING_FAILURES = 200;

/** The scopes a pairing attempt's verdict rests on, as `loginScopes` gives them for a login. */
export function pairingScopes(address: string | null): { own: ThrottleScope[]; shared: ThrottleScope[] } {
  return {
    own: address === null ? [] : [{ scope: `pair-ip:${address}`, limit: MAX_PAIRING_FAILURES_PER_ADDRESS }],
    shared: [{ scope: "pair:all", limit: MAX_PAIRING_FAILURES }],
  };
}

/** The longest wait any of `scopes` imposes (0: none). */
export async function longestWait(db: Db, scopes: readonly ThrottleScope[], now: Date): Promise<number> {
  const waits = await Promise.all(scopes.map(({ scope, limit }) => retryAfterSeconds(db, scope, limit, now)));
  return Math.max(0, ...waits);
}

/** Seconds until `scope` may try again, or 0 when it is not throttled. */
export async function retryAfterSeconds(db: Db, scope: string, limit: number, now: Date): Promise<number> {
  const row = await db.query.loginThrottle.findFirst({ where: (t, { eq }) => eq(t.scope, scope) });
  if (!row || row.failures < limit) return 0;
  const reopens = Date.parse(row.windowStart) + LOGIN_WINDOW_MS;
  return reopens > now.getTime() ? Math.ceil((reopens - now.getTime()) / 1000) : 0;
}

/** Counts one failure; a window older than LOGIN_WINDOW_MS starts over at 1. */
export async function recordFailure(db: Db, scope: string, now: Date): Promise<void> {
  const nowIso = now.toISOString();
  const windowFloor = new Date(now.getTime() - LOGIN_WINDOW_MS).toISOString();
  await db
    .insert(loginThrottle)
    .values({ scope, failures: 1, windowStart: nowIso })
    .onConflictDoUpdate({
      target: loginThrottle.scope,
      set: {
        failures: sql`CASE WHEN ${loginThrottle.windowStart} < ${windowFloor} THEN 1 ELSE ${loginThrottle.failures} + 1 END`,
        windowStart: sql`CASE WHEN ${loginThrottle.windowStart} < ${windowFloor} THEN ${nowIso} ELSE ${loginThrottle.windowStart} END`,
      },
    });
}

export async function clearFailures(db: Db, scope: string): Promise<void> {
  await db.delete(loginThrottle).where(sql`${loginThrottle.scope} = ${scope}`);
}
