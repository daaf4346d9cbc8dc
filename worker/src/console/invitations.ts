// Invitations to the console: an owner (or the admin CLI, for a company's first owner) invites an
// e-mail address with a role; the link carries a random token, stored only as a hash, good once and
// for INVITATION_TTL_MS. Accepting creates the user, or adds the membership to an existing one.
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { randomToken, sha256Hex } from "../crypto/credentials.ts";
import type { Db } from "../db/client.ts";
import { type ConsoleRole, consoleInvitations, consoleMemberships, consoleUsers } from "../db/console-tables.ts";
import { companies } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * An owner may send one address at most this many invitations to a company per window: enough to
 * resend a lost or expired one, too few to use the console as a way to flood someone's inbox.
 */
export const INVITATIONS_PER_ADDRESS = 3;
export const INVITATION_WINDOW_MS = 60 * 60 * 1000;

/** 429 (Retry-After: until the oldest invitation of the window leaves it) once `email` had its share. */
export async function limitInvitations(db: Db, companyId: string, email: string, now: Date): Promise<void> {
  const address = normalEmail(email);
  const recent = await db
    .select({ createdAt: consoleInvitations.createdAt })
    .from(consoleInvitations)
    .where(
      and(
        eq(consoleInvitations.companyId, companyId),
        eq(consoleInvitations.email, address),
        gt(consoleInvitations.createdAt, new Date(now.getTime() - INVITATION_WINDOW_MS).toISOString()),
      ),
    )
    .orderBy(asc(consoleInvitations.createdAt));
  if (recent.length < INVITATIONS_PER_ADDRESS) return;
  const oldest = Date.parse(recent[recent.length - INVITATIONS_PER_ADDRESS]!.createdAt);
  const wait = Math.max(1, Math.ceil((oldest + INVITATION_WINDOW_MS - now.getTime()) / 1000));
  throw new ApiProblem("too_many_requests", {
    detail: `${address} was sent ${recent.length} invitations to this company in the last hour; try again in ${wait} seconds.`,
    retryAfter: wait,
  });
}

export interface NewInvitation {
  companyId: string;
  email: string;
  role: ConsoleRole;
  name?: string | undefined;
  invitedBy: string | null;
}

export async function createInvitation(db: Db, invitation: NewInvitation, now: Date) {
  const token = randomToken(32);
  const row = {
    id: `inv_${randomToken(12)}`,
    tokenHash: await sha256Hex(token),
    email: normalEmail(invitation.email),
    name: invitation.name ?? null,
    companyId: invitation.companyId,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    createdAt: now.toISOString(),
  };
  await db.insert(consoleInvitations).values(row);
  return { id: row.id, token, email: row.email, role: row.role, expiresAt: row.expiresAt };
}

/** The pending invitation behind a token with its company: 404 when unknown, 410 when used or expired. */
export async function pendingInvitation(db: Db, token: string, now: Date) {
  const [row] = await db
    .select({ invitation: consoleInvitations, company: { rnc: companies.rnc, razonSocial: companies.legalName } })
    .from(consoleInvitations)
    .innerJoin(companies, eq(companies.id, consoleInvitations.companyId))
    .where(eq(consoleInvitations.tokenHash, await sha256Hex(token)))
    .limit(1);
  if (!row) throw new ApiProblem("not_found", { detail: "No invitation has this link." });
  if (row.invitation.acceptedAt)
    throw new ApiProblem("expired", { detail: "This invitation was accepted already; sign in instead." });
  if (Date.parse(row.invitation.expiresAt) <= now.getTime())
    throw new ApiProblem("expired", {
      detail: `This invitation expired on ${row.invitation.expiresAt}; ask the owner for a new one.`,
    });
  return row;
}

/**
 * Accepts an invitation: a new address becomes a user with `password`; an existing user must give
 * its own password (401 otherwise) and gains the membership. The token is claimed first, so it
 * serves once even when two acceptances race.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  answer: { password: string; name?: string | undefined },
  now: Date,
): Promise<{ user: { id: string; email: string; name: string }; companyId: string }> {
  const { invitation } = await pendingInvitation(db, token, now);
  const existing = await db.query.consoleUsers.findFirst({ where: eq(consoleUsers.email, invitation.email) });
  if (existing && !(await verifyPassword(answer.password, existing.passwordHash)))
    throw new ApiProblem("unauthorized", {
      detail: `${invitation.email} has a console password already; accept with that password.`,
    });
  const claimed = await db
    .update(consoleInvitations)
    .set({ acceptedAt: now.toISOString() })
    .where(and(eq(consoleInvitations.id, invitation.id), isNull(consoleInvitations.acceptedAt)))
    .returning({ id: consoleInvitations.id });
  if (claimed.length === 0) throw new ApiProblem("expired", { detail: "This invitation was accepted already." });
  const name = answer.name?.trim() || invitation.name || invitation.email.split("@")[0]!;
  const user = existing ?? {
    id: `usr_${randomToken(12)}`,
    email: invitation.email,
    name,
    passwordHash: await hashPassword(answer.password),
  };
  await db.batch([
    db.insert(consoleUsers).values(user).onConflictDoNothing(),
    db
      .insert(consoleMemberships)
      .values({ userId: user.id, companyId: invitation.companyId, role: invitation.role })
      .onConflictDoUpdate({
        target: [consoleMemberships.userId, consoleMemberships.companyId],
        set: { role: invitation.role },
      }),
  ]);
  return { user: { id: user.id, email: user.email, name: user.name }, companyId: invitation.companyId };
}
