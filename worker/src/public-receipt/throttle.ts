// The public receipt pages take requests from anyone, so two counters guard them, both kept by
// the login throttle (auth/throttle.ts) under scopes of their own: the requests of one address
// (when the deployment knows the address: auth/client-address.ts), refused before anything is
// looked up; and the wrong codes tried against one issuer and e-NCF, from anywhere, counted for
// any pair asked for (a pair that does not exist is counted the same, so a 429 reveals nothing).
// The second verdict is given only to a wrong code: the buyer holding the receipt always gets in.
import type { Context } from "hono";
import { clientAddress } from "../auth/client-address.ts";
import { recordFailure, retryAfterSeconds } from "../auth/throttle.ts";
import { database } from "../db/client.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";

/** Requests one address may make to the public pages per window (auth/throttle.ts: 15 minutes). */
export const MAX_PUBLIC_REQUESTS_PER_ADDRESS = 300;
/** Wrong security codes one receipt may be asked with per window, from all addresses. */
export const MAX_WRONG_CODES_PER_RECEIPT = 10;

const addressScope = (address: string) => `public-ip:${address}`;
const receiptScope = (rnc: string, encf: string) => `public-receipt:${rnc}:${encf}`;

function tooMany(wait: number): ApiProblem {
  return new ApiProblem("too_many_requests", {
    detail: `Too many requests for this page; try again in ${wait} seconds.`,
    retryAfter: wait,
  });
}

/** Counts the request against its address; 429 with Retry-After once the address is over its budget. */
export async function countPublicRequest(c: Context<AppEnv>, now: Date): Promise<void> {
  const address = clientAddress(c.req.raw.headers, c.env.BEHIND_CLOUDFLARE);
  if (!address) return;
  const db = database(c.env.DB);
  const wait = await retryAfterSeconds(db, addressScope(address), MAX_PUBLIC_REQUESTS_PER_ADDRESS, now);
  if (wait > 0) throw tooMany(wait);
  await recordFailure(db, addressScope(address), now);
}

/** A wrong code (or a receipt that does not exist): counted, and 429 once the pair was tried too often. */
export async function refuseWrongCode(c: Context<AppEnv>, rnc: string, encf: string, now: Date): Promise<void> {
  const db = database(c.env.DB);
  const scope = receiptScope(rnc, encf);
  const wait = await retryAfterSeconds(db, scope, MAX_WRONG_CODES_PER_RECEIPT, now);
  if (wait > 0) throw tooMany(wait);
  await recordFailure(db, scope, now);
}
