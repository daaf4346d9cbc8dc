// The console's cookie and CSRF rules (the console contract): the cookie `ecf_console`, or
// `__Host-ecf_console` over https (Secure), HttpOnly, SameSite=Strict, Path=/; every request that
// is not GET or HEAD and authenticates by the cookie sends the session's CSRF token in X-CSRF-Token.
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import type { AppEnv, Principal } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import { type LiveSession, liveSession, SESSION_MAX_MS } from "../console/sessions.ts";
import { constantTimeEqual } from "../crypto/credentials.ts";
import { requireRole } from "./roles.ts";

export const CSRF_HEADER = "X-CSRF-Token";
const isHttps = (c: Context) => new URL(c.req.url).protocol === "https:";
export const cookieName = (c: Context) => (isHttps(c) ? "__Host-ecf_console" : "ecf_console");

export function setSessionCookie(c: Context, token: string): void {
  setCookie(c, cookieName(c), token, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/",
    secure: isHttps(c),
    maxAge: SESSION_MAX_MS / 1000,
  });
}

export function clearSessionCookie(c: Context): void {
  setCookie(c, cookieName(c), "", { httpOnly: true, sameSite: "Strict", path: "/", secure: isHttps(c), maxAge: 0 });
}

/** The session's cookie token sent with this request, if any. */
export const sessionToken = (c: Context) => getCookie(c, cookieName(c)) || undefined;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The live session behind this request's cookie, with the CSRF header checked for every unsafe
 * method. Null when there is no cookie; a cookie of a session that ended is a 401.
 */
export async function cookieSession(c: Context<AppEnv>): Promise<LiveSession | null> {
  const token = sessionToken(c);
  if (!token) return null;
  const session = await liveSession(database(c.env.DB), token, new Date());
  if (!session) throw new ApiProblem("unauthorized", { detail: "The console session has ended; sign in again." });
  if (!SAFE_METHODS.has(c.req.method)) {
    const sent = c.req.header(CSRF_HEADER);
    if (!sent || !(await constantTimeEqual(sent, session.csrfToken)))
      throw new ApiProblem("csrf_failed", {
        detail: `A request signed in by the console's cookie must send the session's csrfToken in ${CSRF_HEADER}.`,
      });
  }
  return session;
}

/**
 * A console session as the principal of its current company, the same kind of principal a
 * company's API key gives (the key kind follows the company's DGII environment), once the role
 * table allowed the request.
 */
export function consolePrincipal(c: Context<AppEnv>, session: LiveSession): Principal {
  const { company, role } = session;
  if (!company || !role)
    throw new ApiProblem("forbidden", {
      detail: "This console user belongs to no company; ask an owner for an invitation.",
    });
  requireRole(role, c.req.method, c.req.path);
  c.set("keyCompany", company);
  return {
    keyId: `user:${session.user.id}`,
    ownerType: "company",
    ownerId: company.id,
    kind: company.dgiiEnvironment === "ecf" ? "live" : "test",
    console: { userId: session.user.id, role },
  };
}

/**
 * Lets only a signed-in console user through (the role table has applied by then): `what` names
 * what an API key may not do, e.g. mint more API keys if it leaked.
 */
export const consoleSessionOnly = (what: string) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!c.get("principal").console)
      throw new ApiProblem("console_session_required", {
        detail: `${what} from a console session (POST /console/login), never with an API key.`,
      });
    await next();
  });
