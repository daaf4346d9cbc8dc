// A company's console users (owners only, through the role table of auth/roles.ts): invite by
// e-mail, list, change a role, remove; and the administrator's invitation of a company's first
// owner (`npm run admin -- console:invite`).
import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, ne, or, sql } from "drizzle-orm";
import { consoleSessionOnly } from "../auth/console-session.ts";
import { requireAuth } from "../auth/middleware.ts";
import {
  cancelInvitation,
  createInvitation,
  expireInvitations,
  limitInvitations,
  pendingInvitations,
} from "../console/invitations.ts";
import { invitationLink, sendInvitationEmail } from "../console/mail.ts";
import { database } from "../db/client.ts";
import { type ConsoleRole, consoleMemberships, consoleUsers } from "../db/console-tables.ts";
import { companies, type Company } from "../db/tables.ts";
import { adminRoute, problemSchema } from "../http/openapi.ts";
import { ApiProblem } from "../errors/problem.ts";
import { newRouter } from "../http/router.ts";
import {
  ConsoleUserList,
  ConsoleUserOut,
  InvitationBody,
  InvitationCreated,
  PendingInvitationList,
  RoleBody,
  UserId,
} from "../http/schemas/console.ts";
import { resolveTenant } from "../tenant/resolve.ts";
import { consoleSecurity } from "./console.ts";

const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });
const body = <T>(schema: T) => ({ body: { required: true, ...json(schema) } });

/** The owner's console session (requireAuth applied the role table), acting for its current company. */
const consoleOwner = consoleSessionOnly("Console users are managed");
const ownerOnly = [requireAuth, resolveTenant, consoleOwner] as const;

const ownerProblems = {
  401: problemSchema("Not signed in to the console"),
  403: problemSchema("Not the company's owner, or csrf_failed"),
};

async function invite(
  env: Env,
  origin: string,
  company: Company,
  input: { email: string; role: ConsoleRole; name?: string | undefined },
  invitedBy: string | null,
) {
  const made = await createInvitation(database(env.DB), { companyId: company.id, invitedBy, ...input }, new Date());
  const link = invitationLink(env, origin, made.token);
  const emailSent = await sendInvitationEmail(env, {
    to: made.email,
    companyName: company.tradeName ?? company.legalName,
    rnc: company.rnc,
    role: made.role,
    link,
    expiresAt: made.expiresAt,
  });
  return { id: made.id, email: made.email, role: made.role, expiresAt: made.expiresAt, emailSent, link };
}

export const consoleUserRoutes = newRouter();
consoleUserRoutes.use("/console/users", ...ownerOnly);
consoleUserRoutes.use("/console/users/*", ...ownerOnly);

consoleUserRoutes.openapi(
  createRoute({
    method: "post",
    path: "/console/invitations",
    tags: ["Console"],
    security: consoleSecurity,
    middleware: [...ownerOnly],
    summary: "Invite someone to the current company's console",
    description:
      "E-mails a link to accept the invitation (`/app/#/invitacion/<token>`), good once for 7 days, with the role the person will have in the current company. Owners only. One address gets at most 3 invitations to a company per hour (resending included), and a company sends at most 50 a day: the next is a 429 with Retry-After.",
    request: body(InvitationBody),
    responses: {
      201: { description: "Invited", ...json(InvitationCreated) },
      400: problemSchema("Malformed body"),
      ...ownerProblems,
      429: problemSchema("too_many_requests: this address had its invitations for the hour"),
    },
  }),
  async (c) => {
    const origin = new URL(c.req.url).origin;
    const input = c.req.valid("json");
    await limitInvitations(database(c.env.DB), c.get("tenant").id, input.email, new Date());
    const { link: _link, ...made } = await invite(
      c.env,
      origin,
      c.get("tenant"),
      input,
      c.get("principal").console!.userId,
    );
    return c.json(made, 201);
  },
);

consoleUserRoutes.openapi(
  createRoute({
    method: "get",
    path: "/console/invitations",
    tags: ["Console"],
    security: consoleSecurity,
    middleware: [...ownerOnly],
    summary: "The current company's pending invitations",
    description:
      "Every invitation not accepted, cancelled or expired yet, oldest first, with the address and the role it offers. Owners only.",
    responses: { 200: { description: "Pending invitations", ...json(PendingInvitationList) }, ...ownerProblems },
  }),
  async (c) => c.json({ items: await pendingInvitations(database(c.env.DB), c.get("tenant").id, new Date()) }, 200),
);

consoleUserRoutes.openapi(
  createRoute({
    // Not DELETE /console/invitations/{id}: that path is GET /console/invitations/{token}'s (the
    // link's), and one path cannot name its parameter two ways.
    method: "post",
    path: "/console/invitations/{id}/cancel",
    tags: ["Console"],
    security: consoleSecurity,
    middleware: [...ownerOnly],
    summary: "Cancel a pending invitation",
    description: "Its link stops working at once (accepting it answers that it expired). Owners only.",
    request: { params: UserId },
    responses: {
      204: { description: "Cancelled" },
      404: problemSchema("No pending invitation with this id in this company"),
      ...ownerProblems,
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    if (!(await cancelInvitation(database(c.env.DB), c.get("tenant").id, id, new Date())))
      throw new ApiProblem("not_found", { detail: `No pending invitation ${id} in this company.` });
    return c.body(null, 204);
  },
);

const usersOf = (env: Env, companyId: string) =>
  database(env.DB)
    .select({ id: consoleUsers.id, email: consoleUsers.email, name: consoleUsers.name, role: consoleMemberships.role })
    .from(consoleMemberships)
    .innerJoin(consoleUsers, eq(consoleUsers.id, consoleMemberships.userId))
    .where(eq(consoleMemberships.companyId, companyId))
    .orderBy(consoleUsers.email);

consoleUserRoutes.openapi(
  createRoute({
    method: "get",
    path: "/console/users",
    tags: ["Console"],
    security: consoleSecurity,
    summary: "The current company's console users and their roles",
    description: "Everyone with a role in the current company, with that role, by e-mail address. Owners only.",
    responses: { 200: { description: "Users", ...json(ConsoleUserList) }, ...ownerProblems },
  }),
  async (c) => c.json({ items: await usersOf(c.env, c.get("tenant").id) }, 200),
);

/** Only while another owner remains: the condition that keeps a company from losing its last owner. */
const notTheLastOwner = (companyId: string) =>
  or(
    ne(consoleMemberships.role, "owner"),
    sql`(SELECT count(*) FROM console_memberships WHERE company_id = ${companyId} AND role = 'owner') > 1`,
  );

/** 404 when the user has no role in the company, else 409: it is the last owner. */
async function refusal(env: Env, companyId: string, userId: string): Promise<never> {
  const member = (await usersOf(env, companyId)).some((u) => u.id === userId);
  if (!member) throw new ApiProblem("not_found", { detail: `User ${userId} has no role in this company.` });
  throw new ApiProblem("conflict", {
    detail: "The company's last owner cannot be removed or demoted; make another owner first.",
  });
}

consoleUserRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/console/users/{id}",
    tags: ["Console"],
    security: consoleSecurity,
    summary: "Change a user's role in the current company",
    description: "Owners only. The last owner keeps its role (409) until another owner exists.",
    request: { params: UserId, ...body(RoleBody) },
    responses: {
      200: { description: "The user with its new role", ...json(ConsoleUserOut) },
      400: problemSchema("Malformed body"),
      404: problemSchema("No such user in this company"),
      409: problemSchema("conflict: the company's last owner"),
      ...ownerProblems,
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const { role } = c.req.valid("json");
    const companyId = c.get("tenant").id;
    const where = and(eq(consoleMemberships.userId, id), eq(consoleMemberships.companyId, companyId));
    const changed = await database(c.env.DB)
      .update(consoleMemberships)
      .set({ role })
      .where(role === "owner" ? where : and(where, notTheLastOwner(companyId)))
      .returning({ userId: consoleMemberships.userId });
    if (changed.length === 0) return refusal(c.env, companyId, id);
    const user = (await usersOf(c.env, companyId)).find((u) => u.id === id)!;
    return c.json(user, 200);
  },
);

consoleUserRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/console/users/{id}",
    tags: ["Console"],
    security: consoleSecurity,
    summary: "Remove a user from the current company",
    description:
      "Removes the membership (the user keeps its other companies) and expires the user's pending invitations to the company, so an older link cannot bring them back. Owners only; never the last owner (409).",
    request: { params: UserId },
    responses: {
      204: { description: "Removed" },
      404: problemSchema("No such user in this company"),
      409: problemSchema("conflict: the company's last owner"),
      ...ownerProblems,
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const companyId = c.get("tenant").id;
    const removed = await database(c.env.DB)
      .delete(consoleMemberships)
      .where(
        and(eq(consoleMemberships.userId, id), eq(consoleMemberships.companyId, companyId), notTheLastOwner(companyId)),
      )
      .returning({ userId: consoleMemberships.userId });
    if (removed.length === 0) return refusal(c.env, companyId, id);
    // Links sent before the removal must not bring the user back.
    const user = await database(c.env.DB).query.consoleUsers.findFirst({ where: eq(consoleUsers.id, id) });
    if (user) await expireInvitations(database(c.env.DB), companyId, user.email, new Date());
    return c.body(null, 204);
  },
);

consoleUserRoutes.openapi(
  adminRoute({
    method: "post",
    path: "/admin/companies/{id}/console-invitations",
    tags: ["Administration"],
    summary: "Invite a company's console user (its first owner)",
    description:
      "How a company gets its first console owner: the invitation is e-mailed, and its link is also answered here for the administrator to pass on. The owner invites everyone else from the console.",
    request: {
      params: z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) }),
      ...body(InvitationBody),
    },
    responses: {
      201: {
        description: "Invited",
        ...json(InvitationCreated.extend({ link: z.string().openapi({ description: "The link to accept it" }) })),
      },
      400: problemSchema("Malformed body"),
      404: problemSchema("No such company"),
    },
  }),
  async (c) => {
    const company = await database(c.env.DB).query.companies.findFirst({
      where: eq(companies.id, c.req.valid("param").id),
    });
    if (!company) throw new ApiProblem("not_found", { detail: "No such company." });
    return c.json(await invite(c.env, new URL(c.req.url).origin, company, c.req.valid("json"), null), 201);
  },
);
