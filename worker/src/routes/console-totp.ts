// Two-step verification of the signed-in console user (console/totp.ts): its status, enrolment
// of an authenticator app (owners and accountants of the current company), its confirmation with
// a code, and turning it off. Every change goes to the company's audit log and to the user's inbox.
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { sha256Hex } from "@ecf/shared/sha256";
import { clientAddress } from "../auth/client-address.ts";
import { cookieSession } from "../auth/console-session.ts";
import { longestWait, loginScopes, recordFailure } from "../auth/throttle.ts";
import { normalEmail } from "../console/invitations.ts";
import { sendConsoleEmail } from "../console/mail.ts";
import { verifyPassword } from "../console/passwords.ts";
import type { LiveSession } from "../console/sessions.ts";
import { confirmEnrolment, disableTotp, startEnrolment, totpInvalid, totpState, useTotpCode } from "../console/totp.ts";
import { database } from "../db/client.ts";
import { consoleUsers } from "../db/console-tables.ts";
import type { AppEnv } from "../env.ts";
import { ApiProblem } from "../errors/problem.ts";
import { problemSchema } from "../http/openapi.ts";
import { newRouter } from "../http/router.ts";
import { TotpConfirmBody, TotpDisableBody, TotpEnrolment, TotpStatus } from "../http/schemas/console.ts";
import { writeAudit } from "../ledger/client.ts";
import { body, json, sessionRoute } from "./console.ts";

const statusAnswer = { description: "Two-step verification's status now", ...json(TotpStatus) };

/** The people who hold the company's signature: only they turn the second factor on. */
const mayEnrol = (session: LiveSession) => session.role === "owner" || session.role === "accountant";

async function sessionOf(c: Context<AppEnv>): Promise<LiveSession> {
  const session = await cookieSession(c);
  if (!session) throw new ApiProblem("unauthorized", { detail: "Not signed in to the console." });
  return session;
}

async function statusOf(c: Context<AppEnv>, session: LiveSession) {
  const status = await totpState(database(c.env.DB), session.user.id);
  return c.json({ status, mayEnrol: mayEnrol(session) }, 200);
}

/** The change in the current company's audit log (a user with no company has no log to write). */
async function audit(c: Context<AppEnv>, session: LiveSession, code: string, detail: string) {
  if (!session.companyId) return;
  await writeAudit(c.env, session.companyId, {
    actor: `user:${session.user.id}`,
    action: `${c.req.method} ${c.req.path}`,
    code,
    status: 200,
    detail: `${session.user.email}: ${detail}`,
    requestId: c.get("requestId") ?? "unknown",
  });
}

const notice = (on: boolean) => [
  `Hola:`,
  ``,
  on
    ? "Se activó la verificación en dos pasos de su usuario de la consola: desde ahora, para entrar se pide" +
      " el código de su aplicación de autenticación además de la contraseña."
    : "Se desactivó la verificación en dos pasos de su usuario de la consola: desde ahora basta la contraseña para entrar.",
  ``,
  "Si no fue usted, cambie su contraseña y avise al dueño de la empresa de inmediato.",
];

export const consoleTotpRoutes = newRouter();

consoleTotpRoutes.openapi(
  sessionRoute({
    method: "get",
    path: "/console/totp",
    summary: "The signed-in user's two-step verification",
    description:
      "Whether sign-in asks this user for an authenticator app's code (`active`), an enrolment waits for its first code (`pending`), or neither (`off`); and whether its role in the current company lets it turn it on.",
    responses: { 200: statusAnswer },
  }),
  async (c) => statusOf(c, await sessionOf(c)),
);

consoleTotpRoutes.openapi(
  sessionRoute({
    method: "post",
    path: "/console/totp/enrolment",
    summary: "Start two-step verification: a new authenticator secret",
    description:
      "For owners and accountants of the current company (the people who hold the signature). Answers a new random 160-bit secret, in base32 and as an otpauth:// URI (issuer ecf-edge, the user's e-mail) for the app; it is kept only sealed at rest and never shown again. Nothing changes at sign-in until POST /console/totp/confirmation proves the app has it; starting again replaces a pending secret. Refused (409, `totp_active`) while two-step verification is on.",
    responses: {
      200: { description: "The secret, shown this once", ...json(TotpEnrolment) },
      403: problemSchema(
        "forbidden: the user's role in the current company is not owner or accountant; or csrf_failed",
      ),
      409: problemSchema("conflict (totp_active): two-step verification is on already"),
    },
  }),
  async (c) => {
    const session = await sessionOf(c);
    if (!mayEnrol(session))
      throw new ApiProblem("forbidden", {
        detail: "Two-step verification is for the company's owners and accountants; this user's role here is not one.",
        detailEs:
          "La verificación en dos pasos es para los dueños y contadores de la empresa; su rol en esta empresa no es uno de ellos.",
      });
    const enrolment = await startEnrolment(c.env, database(c.env.DB), session.user);
    await audit(c, session, "totp_enrolment_started", "two-step verification enrolment started");
    return c.json(enrolment, 200);
  },
);

consoleTotpRoutes.openapi(
  sessionRoute({
    method: "post",
    path: "/console/totp/confirmation",
    summary: "Turn two-step verification on with the app's first code",
    description:
      "The app's current code for the pending secret (the step before or after is accepted, for a clock a little off). From now on POST /console/login takes that app's code as `totp` with the password. The user is e-mailed and the change is written in the audit log.",
    request: body(TotpConfirmBody),
    responses: {
      200: statusAnswer,
      400: problemSchema("Malformed body, or not the app's current code (totp_invalid on /code)"),
      409: problemSchema("conflict (totp_not_pending): no enrolment waits for a code"),
    },
  }),
  async (c) => {
    const session = await sessionOf(c);
    const db = database(c.env.DB);
    await confirmEnrolment(c.env, db, session.user.id, c.req.valid("json").code, new Date());
    await audit(c, session, "totp_enabled", "two-step verification turned on");
    await sendConsoleEmail(c.env, session.user.email, "Verificación en dos pasos activada", notice(true));
    return statusOf(c, session);
  },
);

consoleTotpRoutes.openapi(
  sessionRoute({
    method: "post",
    path: "/console/totp/disable",
    summary: "Turn two-step verification off",
    description:
      "Takes the app's current `code` or the user's `password` (whoever only found an open session cannot). Wrong ones count as failed sign-ins of this user (the sign-in throttle; 429 once it trips). Whatever the role, so a user whose role changed can still turn it off. The user is e-mailed and the change is written in the audit log.",
    request: body(TotpDisableBody),
    responses: {
      200: statusAnswer,
      400: problemSchema(
        "Malformed body, neither code nor password, or a wrong one (totp_invalid on /code, or /password)",
      ),
      409: problemSchema("conflict (totp_off): two-step verification is not on"),
      429: problemSchema("Too many wrong codes or passwords for this user from here"),
    },
  }),
  async (c) => {
    const session = await sessionOf(c);
    const db = database(c.env.DB);
    const now = new Date();
    const { code, password } = c.req.valid("json");
    if ((await totpState(db, session.user.id)) !== "active")
      throw new ApiProblem("conflict", {
        detail: "Two-step verification is not on.",
        detailEs: "La verificación en dos pasos no está activa.",
        errors: [{ path: "", code: "totp_off", message: "Two-step verification is not on." }],
      });
    await proveItIsTheUser(c, session, { code, password }, now);
    await disableTotp(db, session.user.id);
    await audit(c, session, "totp_disabled", "two-step verification turned off");
    await sendConsoleEmail(c.env, session.user.email, "Verificación en dos pasos desactivada", notice(false));
    return statusOf(c, session);
  },
);

/** The app's code or the password, under the sign-in throttle of the user's e-mail from here. */
async function proveItIsTheUser(
  c: Context<AppEnv>,
  session: LiveSession,
  proof: { code?: string | undefined; password?: string | undefined },
  now: Date,
) {
  const db = database(c.env.DB);
  const address = clientAddress(c.req.raw.headers, c.env.BEHIND_CLOUDFLARE);
  const { own, shared } = loginScopes(await sha256Hex(`console:${normalEmail(session.user.email)}`), address);
  const scopes = [...own, ...shared];
  const wait = await longestWait(db, scopes, now);
  if (wait > 0)
    throw new ApiProblem("too_many_requests", {
      detail: `Too many wrong codes or passwords; try again in ${wait} seconds.`,
      retryAfter: wait,
    });
  if (!proof.code && !proof.password)
    throw new ApiProblem("validation_failed", {
      detail: "Send the app's current code or the password.",
      detailEs: "Escriba el código actual de la aplicación o su contraseña.",
      errors: [{ path: "/code", code: "required", message: "The app's code or the password is needed." }],
    });
  const user = await db.query.consoleUsers.findFirst({ where: eq(consoleUsers.id, session.user.id) });
  const right = proof.code
    ? await useTotpCode(c.env, db, session.user.id, proof.code, now)
    : await verifyPassword(proof.password!, user?.passwordHash);
  if (right) return;
  await Promise.all(scopes.map(({ scope }) => recordFailure(db, scope, now)));
  if (proof.code) throw totpInvalid("/code");
  throw new ApiProblem("validation_failed", {
    detail: "That is not the user's password.",
    detailEs: "Esa no es su contraseña.",
    errors: [
      {
        path: "/password",
        code: "wrong_password",
        message: "Not the user's password.",
        messageEs: "No es su contraseña.",
      },
    ],
  });
}
