// The console's sign-in and session (the console contract): POST /console/login, GET
// /console/session, POST /console/logout, POST /console/session/company; and the invitation's
// public side (read it, accept it). Invitations made and users managed: routes/console-users.ts.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { clientAddress } from "../auth/client-address.ts";
import { clearSessionCookie, cookieSession, setSessionCookie } from "../auth/console-session.ts";
import { sha256Hex } from "@ecf/shared/sha256";
import { clearFailures, loginScopes, longestWait, recordFailure } from "../auth/throttle.ts";
import { acceptInvitation, normalEmail, pendingInvitation } from "../console/invitations.ts";
import { verifyPassword } from "../console/passwords.ts";
import { sendLoginCode, useLoginCode } from "../console/login-codes.ts";
import { loginSecondFactor, totpInvalid, totpRequired } from "../console/totp.ts";
import { endSession, membershipsOf, sessionView, startSession, switchCompany } from "../console/sessions.ts";
import { database } from "../db/client.ts";
import { consoleUsers } from "../db/console-tables.ts";
import type { AppEnv } from "../env.ts";
import { problemSchema } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { newRouter } from "../http/router.ts";
import {
  AcceptInvitationBody,
  ConsoleLoginBody,
  ConsoleSession,
  InvitationToken,
  InvitationView,
  SwitchCompanyBody,
} from "../http/schemas/console.ts";

export const consoleSecurity = [{ consoleSession: [] as string[] }];
export const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });
const sessionAnswer = { description: "The session (and its cookie)", ...json(ConsoleSession) };
export const body = <T>(schema: T) => ({ body: { required: true, ...json(schema) } });

/** A session endpoint: the cookie scheme, its 401, and the CSRF 403 on writes. */
export function sessionRoute<R extends RouteConfig>(route: R) {
  const shared: RouteConfig["responses"] = { 401: problemSchema("No session, or it has ended") };
  if (route.method !== "get") shared[403] = problemSchema("csrf_failed: X-CSRF-Token missing or wrong");
  return createRoute({
    ...route,
    tags: ["Console"],
    security: consoleSecurity,
    responses: { ...shared, ...(route.responses as R["responses"]) },
  });
}

const requireSession = createMiddleware<AppEnv>(async (c, next) => {
  const session = await cookieSession(c);
  if (!session) throw new ApiProblem("unauthorized", { detail: "Not signed in to the console." });
  c.set("consoleSession", session);
  await next();
});

const tooMany = (wait: number) =>
  new ApiProblem("too_many_requests", {
    detail: `Too many failed sign-ins; try again in ${wait} seconds.`,
    retryAfter: wait,
  });

/** A throttled sign-in: whatever the password, it takes the code e-mailed when the password was right. */
const codeRequired = (wait: number) =>
  new ApiProblem("too_many_requests", {
    detail:
      "Too many failed sign-ins for this e-mail from here. If the e-mail and password are right, a sign-in code was e-mailed: send it as `code` with them (and, with two-step verification on, the app's code as `totp`).",
    errors: [{ path: "/code", code: "email_code_required", message: "The code e-mailed to the user is needed." }],
    retryAfter: wait,
  });

/** Starts a session for the user (acting for `companyId`, else its first company) and answers it with its cookie. */
async function signedIn(c: Context<AppEnv>, user: { id: string; email: string; name: string }, companyId?: string) {
  const db = database(c.env.DB);
  const current = companyId ?? (await membershipsOf(db, user.id))[0]?.id ?? null;
  const { token, csrfToken } = await startSession(db, user.id, current, new Date());
  setSessionCookie(c, token);
  return c.json(await sessionView(db, user, current, csrfToken), 200);
}

export const consoleRoutes = newRouter();
consoleRoutes.openAPIRegistry.registerComponent("securitySchemes", "consoleSession", {
  type: "apiKey",
  in: "cookie",
  name: "ecf_console",
  description:
    "The console's session cookie (`__Host-ecf_console` over https), from POST /console/login; requests other than GET and HEAD also send X-CSRF-Token.",
});

consoleRoutes.openapi(
  createRoute({
    method: "post",
    path: "/console/login",
    tags: ["Console"],
    summary: "Sign in to the console with an e-mail and password",
    description:
      "Starts a browser session: an HttpOnly, SameSite=Strict cookie and the csrfToken to send back. Wrong e-mails and wrong passwords get the same 401. Once failures for an e-mail from an address trip the throttle, the right password alone no longer signs in from there: the answer is a 429 (`email_code_required`, the same for a right and a wrong password) and, when the password was right, a six-digit code is e-mailed to the user; the password with that `code` signs in (10 minutes, once). So a guesser learns nothing and the owner is never locked out. A user with two-step verification on (POST /console/totp/enrolment) also sends its authenticator app's current code as `totp`: without it the right password gets a 401 with `totp_required` on /totp, a wrong or used code a 401 with `totp_invalid` (counted as a failed sign-in); a code serves once, in its 30-second step or the one either side; while throttled it goes with the e-mailed `code`.",
    request: body(ConsoleLoginBody),
    responses: {
      200: sessionAnswer,
      400: problemSchema("Malformed body"),
      401: problemSchema(
        "Unknown e-mail or wrong password (same answer for both); or the right password without the app's code (totp_required) or with a wrong one (totp_invalid)",
      ),
      429: problemSchema("Throttled: send the code e-mailed to the user with the password (email_code_required)"),
    },
  }),
  async (c) => {
    const { email, password, code, totp } = c.req.valid("json");
    const db = database(c.env.DB);
    const now = new Date();
    const address = clientAddress(c.req.raw.headers, c.env.BEHIND_CLOUDFLARE);
    const { own, shared } = loginScopes(await sha256Hex(`console:${normalEmail(email)}`), address);
    const [ownWait, sharedWait] = await Promise.all([longestWait(db, own, now), longestWait(db, shared, now)]);
    const user = await db.query.consoleUsers.findFirst({ where: eq(consoleUsers.email, normalEmail(email)) });
    const right = (await verifyPassword(password, user?.passwordHash)) && !!user;
    const scopes = [...own, ...shared];
    const fail = () => Promise.all(scopes.map(({ scope }) => recordFailure(db, scope, now)));
    if (ownWait > 0 || sharedWait > 0) {
      // Throttled: the same answer for a right and a wrong password, unless the e-mailed code comes too
      // (and the app's code, for a user with two-step verification: the e-mail stands in for neither).
      if (right && code) {
        const second = await loginSecondFactor(c.env, db, user.id, totp, now);
        if ((second === "none" || second === "ok") && (await useLoginCode(db, user.id, code, now))) {
          await Promise.all(scopes.map(({ scope }) => clearFailures(db, scope)));
          return signedIn(c, user);
        }
        if (second === "wrong") await fail();
      }
      if (right && !code) await sendLoginCode(c.env, db, user, now);
      if (!right) await fail();
      throw codeRequired(Math.max(ownWait, sharedWait));
    }
    if (!right) {
      await fail();
      throw new ApiProblem("unauthorized", { detail: "Wrong e-mail or password." });
    }
    // A missing app code is no guess (the console asks for it next); a wrong one is a failed sign-in.
    const second = await loginSecondFactor(c.env, db, user.id, totp, now);
    if (second === "missing") throw totpRequired();
    if (second === "wrong") {
      await fail();
      throw totpInvalid();
    }
    await Promise.all([...own.slice(0, 1), ...shared].map(({ scope }) => clearFailures(db, scope)));
    return signedIn(c, user);
  },
);

consoleRoutes.use("/console/session", requireSession);
consoleRoutes.use("/console/session/*", requireSession);
consoleRoutes.use("/console/logout", requireSession);

consoleRoutes.openapi(
  sessionRoute({
    method: "get",
    path: "/console/session",
    summary: "The signed-in user, its companies and the current one",
    description:
      "What the console shows first: who is signed in, the company it acts for and the role there, the other companies it can switch to, and the csrfToken.",
    responses: { 200: { description: "The session", ...json(ConsoleSession) } },
  }),
  async (c) => {
    const session = c.get("consoleSession");
    return c.json(await sessionView(database(c.env.DB), session.user, session.companyId, session.csrfToken), 200);
  },
);

consoleRoutes.openapi(
  sessionRoute({
    method: "post",
    path: "/console/logout",
    summary: "Sign out: ends the session and clears its cookie",
    description: "The session ends at once on the server; the cookie is cleared.",
    responses: { 204: { description: "Signed out" } },
  }),
  async (c) => {
    await endSession(database(c.env.DB), c.get("consoleSession").tokenHash);
    clearSessionCookie(c);
    return c.body(null, 204);
  },
);

consoleRoutes.openapi(
  sessionRoute({
    method: "post",
    path: "/console/session/company",
    summary: "Act for another of the user's companies",
    description:
      "Switches the session's current company (a partner's user serves several); the role is the user's in that company.",
    request: body(SwitchCompanyBody),
    responses: {
      200: { description: "The session, now acting for that company", ...json(ConsoleSession) },
      400: problemSchema("Malformed body"),
      403: problemSchema("The user has no role in that company; or: csrf_failed"),
    },
  }),
  async (c) => {
    const { rnc } = c.req.valid("json");
    const session = c.get("consoleSession");
    const db = database(c.env.DB);
    const target = (await membershipsOf(db, session.user.id)).find((m) => m.rnc === rnc);
    if (!target) throw new ApiProblem("forbidden", { detail: `This user has no role in company ${rnc}.` });
    await switchCompany(db, session.tokenHash, target.id);
    return c.json(await sessionView(db, session.user, target.id, session.csrfToken), 200);
  },
);

consoleRoutes.openapi(
  createRoute({
    method: "get",
    path: "/console/invitations/{token}",
    tags: ["Console"],
    summary: "What an invitation link offers",
    description: "The invited e-mail, the role and the company, for the page that accepts it; needs no session.",
    request: { params: InvitationToken },
    responses: {
      200: { description: "The pending invitation", ...json(InvitationView) },
      404: problemSchema("not_found: no invitation has this link"),
      410: problemSchema("expired: the invitation expired or was accepted already"),
    },
  }),
  async (c) => {
    const { invitation, company } = await pendingInvitation(database(c.env.DB), c.req.valid("param").token, new Date());
    return c.json({ email: invitation.email, role: invitation.role, company }, 200);
  },
);

consoleRoutes.openapi(
  createRoute({
    method: "post",
    path: "/console/invitations/{token}/accept",
    tags: ["Console"],
    summary: "Accept an invitation and sign in",
    description:
      "A new e-mail becomes a console user with this password (at least 10 characters, not a common password, not the address; else a 400 `weak_password` on /password); a user who exists already gives its own password (and, with two-step verification on, its app's code as `totp`: else `totp_required` or `totp_invalid`, as at sign-in) and gains the company. Acceptance never changes a role: a member of the company already gets a 409 (`already_member`) and keeps theirs. Wrong passwords are throttled as at sign-in (429). The link serves once, for 7 days. Answers the new session with its cookie.",
    request: { params: InvitationToken, ...body(AcceptInvitationBody) },
    responses: {
      200: sessionAnswer,
      400: problemSchema("Malformed body, or a password shorter than 10 characters"),
      401: problemSchema("The e-mail has a console user already and this is not its password"),
      404: problemSchema("not_found: no invitation has this link"),
      409: problemSchema("conflict (already_member): the user has a role in this company already"),
      410: problemSchema("expired: the invitation expired or was accepted already"),
      429: problemSchema("Too many wrong passwords for this e-mail or address"),
    },
  }),
  async (c) => {
    const db = database(c.env.DB);
    const now = new Date();
    const { token } = c.req.valid("param");
    const { invitation } = await pendingInvitation(db, token, now);
    // An existing user's password is guessed here as at sign-in: the same throttle, the same scopes.
    const address = clientAddress(c.req.raw.headers, c.env.BEHIND_CLOUDFLARE);
    const { own, shared } = loginScopes(await sha256Hex(`console:${invitation.email}`), address);
    const [ownWait, sharedWait] = await Promise.all([longestWait(db, own, now), longestWait(db, shared, now)]);
    if (ownWait > 0) throw tooMany(ownWait);
    const answer = c.req.valid("json");
    const secondFactor = async (userId: string) => {
      const second = await loginSecondFactor(c.env, db, userId, answer.totp, now);
      if (second === "missing") throw totpRequired();
      if (second === "wrong") throw totpInvalid();
    };
    try {
      const accepted = await acceptInvitation(db, token, answer, now, secondFactor);
      return signedIn(c, accepted.user, accepted.companyId);
    } catch (error) {
      // A wrong password or app code is a guess; a missing app code is not (the page asks for it).
      const missingCode = error instanceof ApiProblem && error.init.errors?.[0]?.code === "totp_required";
      if (!(error instanceof ApiProblem && error.code === "unauthorized") || missingCode) throw error;
      await Promise.all([...own, ...shared].map(({ scope }) => recordFailure(db, scope, now)));
      throw sharedWait > 0 ? tooMany(sharedWait) : error;
    }
  },
);
