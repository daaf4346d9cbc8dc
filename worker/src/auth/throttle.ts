import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { loginThrottle } from "../db/schema.ts";

/** Failed logins allowed per window, per key and per client address. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_KEY = 5;
export const MAX_FAILURES_PER_ADDRESS = 30;

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
