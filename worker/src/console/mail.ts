// The console's e-mails, in Spanish, sent through the same SMTP path as a receipt's printed copy
// (after-dgii/email.ts: SMTP_HOST/SMTP_PORT, MAIL_FROM; the local mail sink under npm start):
// invitations, the notices owners get when a till receives the signing key, sign-in codes.
import { WorkerMailer } from "worker-mailer";
import { smtpOptions } from "../outbound/smtp.ts";
import type { ConsoleRole } from "../db/console-tables.ts";

const ROLE_NAMES: Record<ConsoleRole, string> = { owner: "dueño", accountant: "contador", manager: "encargado" };

/** The link the invitation e-mail carries: the console's page that accepts it. */
export function invitationLink(env: Env, requestOrigin: string, token: string): string {
  const base = (env as unknown as Record<string, string | undefined>).PUBLIC_BASE_URL?.replace(/\/+$/, "");
  return `${base || requestOrigin}/app/#/invitacion/${token}`;
}

/** Sends one plain-text message; false (and the reason logged) when no mail server is configured or it refused. */
export async function sendConsoleEmail(env: Env, to: string | string[], subject: string, lines: string[]) {
  const smtp = smtpOptions(env);
  const from = (env as unknown as Record<string, string | undefined>).MAIL_FROM;
  if (!smtp || !from || !to.length) return false;
  try {
    await WorkerMailer.send(smtp, { from: { name: "ecf-edge", email: from }, to, subject, text: lines.join("\n") });
    return true;
  } catch (error) {
    console.error(`console e-mail "${subject}" not sent: ${(error as Error).message}`);
    return false;
  }
}

/** Sends the invitation; false when it could not be sent. */
export async function sendInvitationEmail(
  env: Env,
  invitation: { to: string; companyName: string; rnc: string; role: ConsoleRole; link: string; expiresAt: string },
): Promise<boolean> {
  return sendConsoleEmail(env, invitation.to, `Invitación a la consola de ${invitation.companyName}`, [
    `Hola:`,
    ``,
    `Le invitaron a la consola de facturación electrónica de ${invitation.companyName} (RNC ${invitation.rnc})` +
      ` como ${ROLE_NAMES[invitation.role]}.`,
    `Para aceptar y elegir su contraseña, abra este enlace (vence el ${invitation.expiresAt.slice(0, 10)}):`,
    invitation.link,
  ]);
}
