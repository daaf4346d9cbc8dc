// The public receiver endpoints (semilla, validacioncertificado, recepción, aprobación comercial)
// take requests from anyone. An address whose requests keep failing (forged signatures, unknown
// seeds, e-CF not received) is turned away for a while with 429, through the login throttle's
// counters (auth/throttle.ts) under a scope of its own.
import type { Context } from "hono";
import { LOGIN_WINDOW_MS, recordFailure, retryAfterSeconds } from "../auth/throttle.ts";
import { database } from "../db/client.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../http/problem.ts";

/** Failed receiver requests allowed per address per window (LOGIN_WINDOW_MS, 15 minutes). */
export const MAX_RECEIVER_FAILURES_PER_ADDRESS = 60;
export const RECEIVER_WINDOW_MS = LOGIN_WINDOW_MS;

/**
 * The caller's address as Cloudflare's edge reports it (CF-Connecting-IP), undefined when none is
 * known: then nobody is throttled, rather than every caller sharing one bucket. Behind Cloudflare
 * the edge always sets it; elsewhere it is whatever the client sent, so the client-address policy
 * of issue 32's login work should replace this one read.
 */
export function receiverClientAddress(c: Context<AppEnv>): string | undefined {
  return c.req.header("CF-Connecting-IP")?.trim() || undefined;
}

const scopeOf = (address: string) => `receiver-ip:${address}`;

/** 429 with Retry-After while the address has failed too often. */
export async function refuseThrottledAddress(c: Context<AppEnv>, now: Date): Promise<void> {
  const address = receiverClientAddress(c);
  if (!address) return;
  const wait = await retryAfterSeconds(database(c.env.DB), scopeOf(address), MAX_RECEIVER_FAILURES_PER_ADDRESS, now);
  if (wait > 0) {
    throw new ApiProblem("too_many_requests", { detail: `Too many refused requests from this address; try again in ${wait} seconds.`, retryAfter: wait });
  }
}

/** Counts one refused request of the caller's address (never throws: the answer matters more). */
export async function noteReceiverFailure(c: Context<AppEnv>, now: Date): Promise<void> {
  const address = receiverClientAddress(c);
  if (!address) return;
  await recordFailure(database(c.env.DB), scopeOf(address), now).catch((error: unknown) => console.error("receiver throttle", error));
}
