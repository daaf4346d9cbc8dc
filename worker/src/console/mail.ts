// The invitation e-mail, in Spanish, sent through the same SMTP path as a receipt's printed copy
// (after-dgii/email.ts: SMTP_HOST/SMTP_PORT, MAIL_FROM; the local mail sink under npm start).
import { WorkerMailer } from "worker-mailer";
import { smtpOptions } from "../outbound/smtp.ts";
import type { ConsoleRole } from "../db/console-tables.ts";

const ROLE_NAMES: Record<ConsoleRole, string> = { owner: "dueño", accountant: "contador", manager: "encargado" };

/** The link the invitation e-mail carries: the console's page that accepts it. */
export function invitationLink(env: Env, requestOrigin: string, token: string): string {
  const base = (env as unknown as Record<string, string | undefined>).PUBLIC_BASE_URL?.replace(/\/+$/, "");
  return `${base || requestOrigin}/app/#/invitacion/${token}`;
}

/** Sends the invitation; false (and the reason logged) when no mail server is configured or it refused. */
export async function sendInvitationEmail(
  env: Env,
  invitation: { to: string; companyName: string; rnc: string; role: ConsoleRole; link: string; expiresAt: string },
): Promise<boolean> {
  const smtp = smtpOptions(env);
  const from = (env as unknown as Record<string, string | undefined>).MAIL_FROM;
  if (!smtp || !from) return false;
  try {
    await WorkerMailer.send(smtp, {
      from: { name: "ecf-edge", email: from },
      to: invitation.to,
      subject: `Invitación a la consola de ${invitation.companyName}`,
      text: [
        `Hola:`,
        ``,
        `Le invitaron a la consola de facturación electrónica de ${invitation.companyName} (RNC ${invitation.rnc})` +
          ` como ${ROLE_NAMES[invitation.role]}.`,
        `Para aceptar y elegir su contraseña, abra este enlace (vence el ${invitation.expiresAt.slice(0, 10)}):`,
        invitation.link,
      ].join("\n"),
    });
    return true;
  } catch (error) {
    console.error(`invitation e-mail to ${invitation.to} not sent: ${(error as Error).message}`);
    return false;
  }
}
