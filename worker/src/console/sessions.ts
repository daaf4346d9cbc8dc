// A console session: a random token in an HttpOnly cookie (only its hash is stored) and a CSRF
// token the page sends back as a header. It ends when logged out, after SESSION_IDLE_MS without a
// request, or SESSION_MAX_MS after sign-in, whichever comes first.
import { and, eq, lt, or } from "drizzle-orm";
import { randomToken, sha256Hex } from "../crypto/credentials.ts";
import type { Db } from "../db/client.ts";
import { type ConsoleRole, consoleMemberships, consoleSessions, consoleUsers } from "../db/console-tables.ts";
import { companies } from "../db/tables.ts";

export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Last-seen is written at most this often, not on every request. */
const TOUCH_EVERY_MS = 60 * 1000;

/** What GET /console/session answers (the contract's Session). */
export interface SessionView {
  user: { id: string; email: string; name: string };
  company: { rnc: string; razonSocial: string } | null;
  role: ConsoleRole | null;
  companies: { rnc: string; razonSocial: string; role: ConsoleRole }[];
  csrfToken: string;
}

/** A live session with its user, and the user's role in the session's current company (if any). */
export interface LiveSession {
  tokenHash: string;
  csrfToken: string;
  user: { id: string; email: string; name: string };
  companyId: string | null;
  role: ConsoleRole | null;
  company: typeof companies.$inferSelect | null;
}

/** The user's companies, first the oldest membership: the session's company when none is chosen. */
export async function membershipsOf(db: Db, userId: string) {
  return db
    .select({ id: companies.id, rnc: companies.rnc, razonSocial: companies.legalName, role: consoleMemberships.role })
    .from(consoleMemberships)
    .innerJoin(companies, eq(companies.id, consoleMemberships.companyId))
    .where(eq(consoleMemberships.userId, userId))
    .orderBy(consoleMemberships.createdAt, companies.rnc);
}

export async function startSession(
  db: Db,
  userId: string,
  companyId: string | null,
  now: Date,
): Promise<{ token: string; csrfToken: string }> {
  const token = randomToken(32);
  const csrfToken = randomToken(24);
  // The user's sessions that ended without a logout go when it signs in again (nothing else reads them).
  const idleFloor = new Date(now.getTime() - SESSION_IDLE_MS).toISOString();
  await db
    .delete(consoleSessions)
    .where(
      and(
        eq(consoleSessions.userId, userId),
        or(lt(consoleSessions.expiresAt, now.toISOString()), lt(consoleSessions.lastSeenAt, idleFloor)),
      ),
    );
  await db.insert(consoleSessions).values({
    tokenHash: await sha256Hex(token),
    userId,
    companyId,
    csrfToken,
    expiresAt: new Date(now.getTime() + SESSION_MAX_MS).toISOString(),
    lastSeenAt: now.toISOString(),
  });
  return { token, csrfToken };
}

/** The session behind a cookie's token, or null when there is none or it has ended (idle or too old). */
export async function liveSession(db: Db, token: string, now: Date): Promise<LiveSession | null> {
  const tokenHash = await sha256Hex(token);
  const [row] = await db
    .select({
      session: consoleSessions,
      user: { id: consoleUsers.id, email: consoleUsers.email, name: consoleUsers.name },
      role: consoleMemberships.role,
      company: companies,
    })
    .from(consoleSessions)
    .innerJoin(consoleUsers, eq(consoleUsers.id, consoleSessions.userId))
    .leftJoin(
      consoleMemberships,
      and(
        eq(consoleMemberships.userId, consoleSessions.userId),
        eq(consoleMemberships.companyId, consoleSessions.companyId),
      ),
    )
    .leftJoin(companies, eq(companies.id, consoleMemberships.companyId))
    .where(eq(consoleSessions.tokenHash, tokenHash))
    .limit(1);
  if (!row) return null;
  const { session } = row;
  const idleSince = Date.parse(session.lastSeenAt);
  if (now.getTime() >= Date.parse(session.expiresAt) || now.getTime() >= idleSince + SESSION_IDLE_MS) {
    await endSession(db, tokenHash);
    return null;
  }
  if (now.getTime() - idleSince >= TOUCH_EVERY_MS) {
    await db
      .update(consoleSessions)
      .set({ lastSeenAt: now.toISOString() })
      .where(eq(consoleSessions.tokenHash, tokenHash));
  }
  return {
    tokenHash,
    csrfToken: session.csrfToken,
    user: row.user,
    companyId: row.company ? session.companyId : null,
    role: row.company ? row.role : null,
    company: row.company,
  };
}

export async function endSession(db: Db, tokenHash: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash));
}

export async function switchCompany(db: Db, tokenHash: string, companyId: string): Promise<void> {
  await db.update(consoleSessions).set({ companyId }).where(eq(consoleSessions.tokenHash, tokenHash));
}

/** The Session document for a user acting for `companyId` (or its first company when that is not one of its). */
export async function sessionView(
  db: Db,
  user: SessionView["user"],
  companyId: string | null,
  csrfToken: string,
): Promise<SessionView> {
  const memberships = await membershipsOf(db, user.id);
  const current = memberships.find((m) => m.id === companyId) ?? null;
  return {
    // Named one by one: the caller may hand over the whole row, password hash included.
    user: { id: user.id, email: user.email, name: user.name },
    company: current ? { rnc: current.rnc, razonSocial: current.razonSocial } : null,
    role: current?.role ?? null,
    companies: memberships.map(({ rnc, razonSocial, role }) => ({ rnc, razonSocial, role })),
    csrfToken,
  };
}
