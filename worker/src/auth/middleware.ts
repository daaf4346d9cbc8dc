import { createMiddleware } from "hono/factory";
import { keyWithCompany } from "../db/companies.ts";
import type { AppEnv, Principal } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import { verifyToken } from "./jwt.ts";
import { consolePrincipal, cookieSession } from "./console-session.ts";

export type { Principal };

const unauthorized = (detail: string) => new ApiProblem("unauthorized", { detail });

/**
 * Requires `Authorization: Bearer <jwt>`, or, without that header, a console session's cookie
 * (auth/console-session.ts: CSRF checked, the role table applied). The key behind the token is looked up on every request
 * (read from D1 at most a second before: db/key-lookups.ts), so revoking a key ends its tokens
 * within a second rather than when they expire.
 */
export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("Authorization");
  if (!header) {
    const session = await cookieSession(c);
    if (!session)
      throw unauthorized("Missing Authorization header; send 'Authorization: Bearer <token>' from POST /login.");
    c.set("principal", consolePrincipal(c, session));
    return void (await next());
  }
  const match = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/.exec(header.trim());
  if (!match?.[1]) throw unauthorized("Malformed Authorization header; expected 'Bearer <token>'.");
  const claims = await verifyToken(match[1], c.env.JWT_SECRET);
  if (claims === "expired") throw unauthorized("The token has expired; log in again.");
  if (claims === "invalid") throw unauthorized("The token is not valid.");
  // A company key's company comes in the same query: the tenant most requests need next.
  const key = await keyWithCompany(c.env.DB, claims.keyId);
  if (!key || key.revokedAt) throw unauthorized("The API key behind this token has been revoked.");
  c.set("principal", claims);
  c.set("keyCompany", key.company);
  if (key.company) c.set("subscribedEvents", key.subscribedEvents);
  await next();
});
