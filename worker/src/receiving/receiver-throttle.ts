// The public receiver endpoints (semilla, validacioncertificado, recepción, aprobación comercial)
// take requests from anyone. An address whose requests keep failing (forged signatures, unknown
// seeds, e-CF not received) is turned away for a while with 429, through the login throttle's
// counters (auth/throttle.ts) under a scope of its own.
import type { Context } from "hono";
import { clientAddress } from "../auth/client-address.ts";
import { LOGIN_WINDOW_MS, recordFailure, retryAfterSeconds } from "../auth/throttle.ts";
import { database } from "../db/client.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";

/** Failed receiver requests allowed per address per window (LOGIN_WINDOW_MS, 15 minutes). */
export const MAX_RECEIVER_FAILURES_PER_ADDRESS = 60;
export const RECEIVER_WINDOW_MS = LOGIN_WINDOW_MS;

/**
 * The caller's address by the one client-address policy (auth/client-address.ts: CF-Connecting-IP
 * only behind Cloudflare's edge), undefined when none is known: then nobody is throttled, rather
 * than every caller sharing one bucket.
 */
export function receiverClientAddress(c: Context<AppEnv>): string | undefined {
  return clientAddress(c.req.raw.headers, c.env.BEHIND_CLOUDFLARE) ?? undefined;
}

const scopeOf = (address: string) => `receiver-ip:${address}`;

/** 429 with Retry-After while the address has failed too often. */
export async function refuseThrottledAddress(c: Context<AppEnv>, now: Date): Promise<void> {
  const address = receiverClientAddress(c);
  if (!address) return;
  const wait = await retryAfterSeconds(database(c.env.DB), scopeOf(address), MAX_RECEIVER_FAILURES_PER_ADDRESS, now);
  if (wait > 0) {
    throw new ApiProblem("too_many_requests", {
      detail: `Too many refused requests from this address; try again in ${wait} seconds.`,
      retryAfter: wait,
    });
  }
}

/** Counts one refused request of the caller's address (never throws: the answer matters more). */
export async function noteReceiverFailure(c: Context<AppEnv>, now: Date): Promise<void> {
  const address = receiverClientAddress(c);
  if (!address) return;
  await recordFailure(database(c.env.DB), scopeOf(address), now).catch((error: unknown) =>
    console.error("receiver throttle", error),
  );
}
