// Invitations to the console: an owner (or the admin CLI, for a company's first owner) invites an
// e-mail address with a role; the link carries a random token, stored only as a hash, good once and
// for INVITATION_TTL_MS. Accepting creates the user, or adds the membership to an existing one.
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { sha256Hex } from "@ecf/shared/sha256";
import { randomToken } from "../crypto/credentials.ts";
import type { Db } from "../db/client.ts";
import { type ConsoleRole, consoleInvitations, consoleMemberships, consoleUsers } from "../db/console-tables.ts";
import { companies } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { hashPassword, verifyPassword, weakPasswordReason } from "./passwords.ts";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * An owner may send one address at most this many invitations to a company per window: enough to
 * resend a lost or expired one, too few to use the console as a way to flood someone's inbox.
 */
export const INVITATIONS_PER_ADDRESS = 3;
export const INVITATION_WINDOW_MS = 60 * 60 * 1000;
/** And a company sends at most this many a day, to any addresses: a team, not a mailing list. */
export const INVITATIONS_PER_COMPANY_PER_DAY = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * 429 (Retry-After: until the oldest invitation of the window leaves it) once `email` had its
 * share, or once the company sent its day's share.
 */
export async function limitInvitations(db: Db, companyId: string, email: string, now: Date): Promise<void> {
  await limitCompanyInvitations(db, companyId, now);
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

async function limitCompanyInvitations(db: Db, companyId: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const recent = await db
    .select({ createdAt: consoleInvitations.createdAt })
    .from(consoleInvitations)
    .where(and(eq(consoleInvitations.companyId, companyId), gt(consoleInvitations.createdAt, since)))
    .orderBy(asc(consoleInvitations.createdAt));
  if (recent.length < INVITATIONS_PER_COMPANY_PER_DAY) return;
  const oldest = Date.parse(recent[recent.length - INVITATIONS_PER_COMPANY_PER_DAY]!.createdAt);
  const wait = Math.max(1, Math.ceil((oldest + DAY_MS - now.getTime()) / 1000));
  throw new ApiProblem("too_many_requests", {
    detail: `This company sent ${recent.length} invitations in the last 24 hours; try again in ${wait} seconds.`,
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
 * Accepts an invitation: a new address becomes a user with `password` (which must not be weak); an
 * existing user must give its own password (401 otherwise) and gains the membership. Acceptance
 * never changes a role: someone who is a member already keeps theirs (409; an owner changes roles),
 * so an old link cannot promote a manager or demote the last owner. The token is claimed once,
 * and two acceptances at once (of this link, or of two links to one address) never fail midway.
 * `secondFactor` checks an existing user's app code (it throws), so a link is no way around it.
 */
export async function acceptInvitation(
  db: Db,
  token: string,
  answer: { password: string; name?: string | undefined },
  now: Date,
  secondFactor: (userId: string) => Promise<void> = async () => {},
): Promise<{ user: { id: string; email: string; name: string }; companyId: string }> {
  const { invitation } = await pendingInvitation(db, token, now);
  const user = await invitedUser(db, invitation, answer);
  await secondFactor(user.id);
  if (await memberOf(db, user.id, invitation.companyId)) throw alreadyMember(invitation.email);
  const claimed = await db
    .update(consoleInvitations)
    .set({ acceptedAt: now.toISOString() })
    .where(and(eq(consoleInvitations.id, invitation.id), isNull(consoleInvitations.acceptedAt)))
    .returning({ id: consoleInvitations.id });
  if (claimed.length === 0) throw new ApiProblem("expired", { detail: "This invitation was accepted already." });
  const added = await db
    .insert(consoleMemberships)
    .values({ userId: user.id, companyId: invitation.companyId, role: invitation.role })
    .onConflictDoNothing()
    .returning({ userId: consoleMemberships.userId });
  if (added.length === 0) throw alreadyMember(invitation.email);
  return { user: { id: user.id, email: user.email, name: user.name }, companyId: invitation.companyId };
}

type Invitation = Awaited<ReturnType<typeof pendingInvitation>>["invitation"];

/**
 * The invited address's user: the existing one when `answer.password` is its password (401
 * otherwise), else a new one. A user created meanwhile by another acceptance is read back, so its
 * password is checked like any existing user's.
 */
async function invitedUser(
  db: Db,
  invitation: Invitation,
  answer: { password: string; name?: string | undefined },
): Promise<{ id: string; email: string; name: string }> {
  const existing = await db.query.consoleUsers.findFirst({ where: eq(consoleUsers.email, invitation.email) });
  if (existing) {
    if (!(await verifyPassword(answer.password, existing.passwordHash)))
      throw new ApiProblem("unauthorized", {
        detail: `${invitation.email} has a console password already; accept with that password.`,
      });
    return existing;
  }
  const weak = weakPasswordReason(answer.password, invitation.email);
  if (weak)
    throw new ApiProblem("validation_failed", {
      detail: `Choose another password: this one is ${weak}.`,
      errors: [{ path: "/password", code: "weak_password", message: `The password is ${weak}.` }],
    });
  const created = await db
    .insert(consoleUsers)
    .values({
      id: `usr_${randomToken(12)}`,
      email: invitation.email,
      name: answer.name?.trim() || invitation.name || invitation.email.split("@")[0]!,
      passwordHash: await hashPassword(answer.password),
    })
    .onConflictDoNothing()
    .returning();
  return created[0] ?? invitedUser(db, invitation, answer);
}

const memberOf = async (db: Db, userId: string, companyId: string) =>
  !!(await db.query.consoleMemberships.findFirst({
    where: and(eq(consoleMemberships.userId, userId), eq(consoleMemberships.companyId, companyId)),
  }));

const alreadyMember = (email: string) =>
  new ApiProblem("conflict", {
    detail: `${email} is a member of this company already; its role changes only by an owner, under Usuarios.`,
    errors: [{ path: "", code: "already_member", message: "Already a member of this company." }],
  });

/** Every pending invitation of `email` to the company expires now: a removed user's older links are dead. */
export async function expireInvitations(db: Db, companyId: string, email: string, now: Date): Promise<void> {
  await db
    .update(consoleInvitations)
    .set({ expiresAt: now.toISOString() })
    .where(
      and(
        eq(consoleInvitations.companyId, companyId),
        eq(consoleInvitations.email, normalEmail(email)),
        isNull(consoleInvitations.acceptedAt),
        gt(consoleInvitations.expiresAt, now.toISOString()),
      ),
    );
}

/** The company's invitations not accepted, not cancelled and not expired, oldest first. */
export function pendingInvitations(db: Db, companyId: string, now: Date) {
  return db
    .select({
      id: consoleInvitations.id,
      email: consoleInvitations.email,
      name: consoleInvitations.name,
      role: consoleInvitations.role,
      expiresAt: consoleInvitations.expiresAt,
      createdAt: consoleInvitations.createdAt,
    })
    .from(consoleInvitations)
    .where(
      and(
        eq(consoleInvitations.companyId, companyId),
        isNull(consoleInvitations.acceptedAt),
        gt(consoleInvitations.expiresAt, now.toISOString()),
      ),
    )
    .orderBy(asc(consoleInvitations.createdAt), asc(consoleInvitations.id));
}

/** Cancels a pending invitation of the company (its link is dead from now on); false when there is none. */
export async function cancelInvitation(db: Db, companyId: string, id: string, now: Date): Promise<boolean> {
  const cancelled = await db
    .update(consoleInvitations)
    .set({ expiresAt: now.toISOString() })
    .where(
      and(
        eq(consoleInvitations.id, id),
        eq(consoleInvitations.companyId, companyId),
        isNull(consoleInvitations.acceptedAt),
        gt(consoleInvitations.expiresAt, now.toISOString()),
      ),
    )
    .returning({ id: consoleInvitations.id });
  return cancelled.length > 0;
}
