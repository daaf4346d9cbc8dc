// The SMTP server the worker sends mail through (TCP sockets, worker-mailer): the receipts' printed
// copies and the console's invitations.
import { LogLevel } from "worker-mailer";

/** The SMTP server receipts and console invitations are sent through, or undefined when none is configured. */
export function smtpOptions(env: Env) {
  const vars = env as unknown as Record<string, string | undefined>;
  const port = Number(vars.SMTP_PORT);
  if (!vars.SMTP_HOST || !Number.isInteger(port) || port <= 0) return undefined;
  const credentials = vars.SMTP_USER ? { username: vars.SMTP_USER, password: vars.SMTP_PASSWORD ?? "" } : undefined;
  return {
    host: vars.SMTP_HOST,
    port,
    secure: port === 465,
    startTls: port === 587,
    ...(credentials ? { credentials } : {}),
    socketTimeoutMs: 10_000,
    responseTimeoutMs: 10_000,
    logLevel: LogLevel.ERROR,
  };
}
