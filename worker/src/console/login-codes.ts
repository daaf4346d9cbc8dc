// A second factor that appears only when needed: once an account's sign-ins from an address have
// tripped the throttle, the right password alone no longer signs in from there; it takes the
// one-time code this e-mails to the user. A guesser gets nothing (the answer is the same for a
// right and a wrong password), and the owner is never locked out: the code reaches their inbox.
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { sha256Hex } from "@ecf/shared/sha256";
import { constantTimeEqual } from "../crypto/credentials.ts";
import type { Db } from "../db/client.ts";
import { consoleLoginCodes } from "../db/console-tables.ts";
import { sendConsoleEmail } from "./mail.ts";

export const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;
export const LOGIN_CODE_ATTEMPTS = 5;

const hashCode = (userId: string, code: string) => sha256Hex(`login-code:${userId}:${code.replace(/\D/g, "")}`);

/** Six random digits, uniform (rejection sampling over 32-bit values). */
function newCode(): string {
  const limit = 4_294_967_296 - (4_294_967_296 % 1_000_000);
  for (;;) {
    const [n] = crypto.getRandomValues(new Uint32Array(1));
    if (n! < limit) return String(n! % 1_000_000).padStart(6, "0");
  }
}

/** A fresh code for the user (replacing any earlier one), e-mailed to them. */
export async function sendLoginCode(env: Env, db: Db, user: { id: string; email: string }, now: Date) {
  const code = newCode();
  const row = {
    userId: user.id,
    codeHash: await hashCode(user.id, code),
    expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_MS).toISOString(),
    attempts: 0,
  };
  await db.insert(consoleLoginCodes).values(row).onConflictDoUpdate({ target: consoleLoginCodes.userId, set: row });
  await sendConsoleEmail(env, user.email, `Su código para entrar: ${code}`, [
    `Hola:`,
    ``,
    `Hubo varios intentos fallidos de entrar a la consola con su correo. Para entrar, escriba este código` +
      ` junto con su contraseña (vale 10 minutos, una vez):`,
    ``,
    code,
    ``,
    `Si no fue usted, no haga nada: su contraseña sigue protegida por este código.`,
  ]);
}

/** Whether `code` is the user's current code; a right one is used up, a wrong one counts a try. */
export async function useLoginCode(db: Db, userId: string, code: string, now: Date): Promise<boolean> {
  const nowIso = now.toISOString();
  const [row] = await db
    .update(consoleLoginCodes)
    .set({ attempts: sql`${consoleLoginCodes.attempts} + 1` })
    .where(
      and(
        eq(consoleLoginCodes.userId, userId),
        gt(consoleLoginCodes.expiresAt, nowIso),
        lt(consoleLoginCodes.attempts, LOGIN_CODE_ATTEMPTS),
      ),
    )
    .returning();
  if (!row || !(await constantTimeEqual(row.codeHash, await hashCode(userId, code)))) return false;
  await db.delete(consoleLoginCodes).where(eq(consoleLoginCodes.userId, userId));
  return true;
}
