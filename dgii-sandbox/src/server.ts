import { startSandbox } from "./start.ts";

const port = Number(process.env.SANDBOX_PORT ?? 8788);
const hostname = process.env.SANDBOX_HOST ?? "127.0.0.1";
const processingMs =
  process.env.SANDBOX_PROCESSING_MS === undefined ? undefined : Number(process.env.SANDBOX_PROCESSING_MS);

// The local SMTP sink for the worker's e-mails (GET /__mail); SMTP_PORT=-1 turns it off.
const smtpPort = Number(process.env.SMTP_PORT ?? 2525);
// Where it remembers what it received across restarts; unset, it keeps everything in memory.
const stateDir = process.env.SANDBOX_STATE_DIR || undefined;
// LENIENT, not DGII: SANDBOX_LENIENT_SIGNERS=1 lets an RNC with no registered signer through unchecked.
const lenientSigners = process.env.SANDBOX_LENIENT_SIGNERS === "1";
const sandbox = await startSandbox({
  port,
  hostname,
  ...(processingMs === undefined ? {} : { processingMs }),
  ...(smtpPort >= 0 ? { smtpPort } : {}),
  ...(stateDir ? { stateDir } : {}),
  ...(lenientSigners ? { lenientSigners } : {}),
});
console.log(
  `DGII sandbox listening on ${sandbox.url}${lenientSigners ? " (LENIENT signers)" : ""}${sandbox.smtpPort ? `, SMTP sink on ${hostname}:${sandbox.smtpPort}` : ""}${stateDir ? `, state in ${stateDir}` : ""}`,
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void sandbox.close().then(() => process.exit(0)));
}
