// Two-step verification for the people who hold the company's signature (owners and
// accountants): an authenticator app's six-digit code (crypto/totp.ts) asked at sign-in after the
// password. The secret is sealed at rest under MASTER_KEY and shown once, while enrolling; it is
// active only after a code from the app confirmed it, and every accepted code's step is kept so
// no code serves twice.
import { and, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { openPrivateKey, sealPrivateKey } from "../certificates/vault.ts";
import { base32Encode, matchingStep, otpauthUri } from "../crypto/totp.ts";
import type { Db } from "../db/client.ts";
import { consoleTotp } from "../db/console-tables.ts";
import { ApiProblem } from "../errors/problem.ts";

/** The secret's length: 160 bits, RFC 4226's recommendation for HMAC-SHA1. */
export const TOTP_SECRET_BYTES = 20;

/** Binds a sealed secret to its user: copied to another user's row, it does not open. */
const sealContext = (userId: string) => `console-totp:${userId}`;

export type TotpState = "off" | "pending" | "active";

export async function totpState(db: Db, userId: string): Promise<TotpState> {
  const row = await db.query.consoleTotp.findFirst({ where: eq(consoleTotp.userId, userId) });
  return !row ? "off" : row.confirmedAt ? "active" : "pending";
}

/**
 * A new secret for the user, pending until confirmed (any earlier pending one is replaced). An
 * active one is never replaced here: it is disabled first, with a code or the password.
 */
export async function startEnrolment(env: Env, db: Db, user: { id: string; email: string }) {
  if ((await totpState(db, user.id)) === "active")
    throw new ApiProblem("conflict", {
      detail: "Two-step verification is on already; turn it off first to enrol another app.",
      detailEs: "La verificación en dos pasos ya está activa; desactívela primero para usar otra aplicación.",
      errors: [{ path: "", code: "totp_active", message: "Two-step verification is on already." }],
    });
  const secret = crypto.getRandomValues(new Uint8Array(TOTP_SECRET_BYTES));
  const row = { userId: user.id, secretSealed: await sealPrivateKey(secret, env.MASTER_KEY, sealContext(user.id)) };
  await db
    .insert(consoleTotp)
    .values(row)
    .onConflictDoUpdate({ target: consoleTotp.userId, set: { ...row, confirmedAt: null, lastStep: null } });
  const base32 = base32Encode(secret);
  return { secret: base32, otpauthUri: otpauthUri(base32, user.email) };
}

/**
 * Whether `code` is a current code of the user's secret (active, or pending when `pending`), not
 * used before; a right one is used up: its step is written only if no later one was (two requests
 * racing with the same code get one success).
 */
export async function useTotpCode(
  env: Env,
  db: Db,
  userId: string,
  code: string,
  now: Date,
  pending = false,
): Promise<boolean> {
  const confirmed = pending ? isNull(consoleTotp.confirmedAt) : isNotNull(consoleTotp.confirmedAt);
  const row = await db.query.consoleTotp.findFirst({ where: and(eq(consoleTotp.userId, userId), confirmed) });
  if (!row) return false;
  const secret = await openPrivateKey(row.secretSealed, env.MASTER_KEY, sealContext(userId));
  const step = await matchingStep(secret, code, now, row.lastStep);
  if (step === null) return false;
  const used = await db
    .update(consoleTotp)
    .set({ lastStep: step, ...(pending ? { confirmedAt: now.toISOString() } : {}) })
    .where(
      and(eq(consoleTotp.userId, userId), confirmed, or(isNull(consoleTotp.lastStep), lt(consoleTotp.lastStep, step))),
    )
    .returning({ userId: consoleTotp.userId });
  return used.length > 0;
}

/** Confirms the pending secret with a code from the app: from now on sign-in asks for one. */
export async function confirmEnrolment(env: Env, db: Db, userId: string, code: string, now: Date): Promise<void> {
  if ((await totpState(db, userId)) !== "pending")
    throw new ApiProblem("conflict", {
      detail: "There is no enrolment to confirm: start one first.",
      detailEs: "No hay una activación pendiente: empiece una primero.",
      errors: [{ path: "", code: "totp_not_pending", message: "No pending enrolment." }],
    });
  if (!(await useTotpCode(env, db, userId, code, now, true))) throw totpInvalid("/code");
}

/** Turns two-step verification off (and drops a pending enrolment); false when it was not on. */
export async function disableTotp(db: Db, userId: string): Promise<boolean> {
  const removed = await db
    .delete(consoleTotp)
    .where(eq(consoleTotp.userId, userId))
    .returning({ confirmedAt: consoleTotp.confirmedAt });
  return removed.some((r) => r.confirmedAt !== null);
}

/** A sign-in (or an invitation accepted) by a user with two-step verification and no code sent. */
export const totpRequired = () =>
  new ApiProblem("unauthorized", {
    detail: "This user has two-step verification on: send the authenticator app's six-digit code as `totp`.",
    detailEs:
      "Este usuario tiene la verificación en dos pasos activa: escriba el código de su aplicación de autenticación.",
    errors: [
      {
        path: "/totp",
        code: "totp_required",
        message: "The authenticator app's code is needed.",
        messageEs: "Falta el código de la aplicación de autenticación.",
      },
    ],
  });

/**
 * A code that is not the app's current one, or was used already: at sign-in a 401 on /totp (a
 * failed sign-in); in the session's own settings a 400 on the field it came in.
 */
export const totpInvalid = (path: "/totp" | "/code" = "/totp") =>
  new ApiProblem(path === "/totp" ? "unauthorized" : "validation_failed", {
    detail: "The authenticator app's code is wrong, expired or used already; send the current one.",
    detailEs: "El código de la aplicación de autenticación no es válido, venció o ya se usó; escriba el código actual.",
    errors: [
      {
        path,
        code: "totp_invalid",
        message: "Not the app's current code, or used already.",
        messageEs: "No es el código actual de la aplicación, o ya se usó.",
      },
    ],
  });

/**
 * The second factor at sign-in, once the password proved right: "none" when the user has no
 * active app, else whether `totp` is its current code (used up when it is).
 */
export async function loginSecondFactor(
  env: Env,
  db: Db,
  userId: string,
  totp: string | undefined,
  now: Date,
): Promise<"none" | "ok" | "missing" | "wrong"> {
  if ((await totpState(db, userId)) !== "active") return "none";
  if (!totp) return "missing";
  return (await useTotpCode(env, db, userId, totp, now)) ? "ok" : "wrong";
}
