// A local SMTP server that keeps what it receives, so `npm start` and the tests can see the
// e-mails the worker sends (the printed copy of a receipt for a buyer that is not an electronic
// receiver). Not part of DGII: it stands in for the mail provider. GET /__mail lists the messages.
import { Hono } from "hono";
import { simpleParser } from "mailparser";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  attachments: { filename: string; contentType: string; size: number; contentBase64: string }[];
  receivedAt: string;
}

export interface MailSink {
  port: number;
  messages(): ReceivedMail[];
  clear(): void;
  close(): Promise<void>;
}

export async function startMailSink(port = 0, hostname = "127.0.0.1"): Promise<MailSink> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // A local sink: no TLS, no authentication (a client with no credentials must not be asked for any).
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            attachments: mail.attachments.map((a) => ({
              filename: a.filename ?? "",
              contentType: a.contentType,
              size: a.size,
              contentBase64: a.content.toString("base64"),
            })),
            receivedAt: new Date().toISOString(),
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve());
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    messages: () => messages,
    clear: () => void messages.splice(0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** GET /__mail (every message, attachments included) and DELETE /__mail (forget them). */
export function mailRoutes(sink: MailSink | undefined) {
  const app = new Hono();
  app.get("/", (c) => (sink ? c.json(sink.messages()) : c.json({ error: "no SMTP sink is running" }, 404)));
  app.delete("/", (c) => {
    sink?.clear();
    return c.body(null, 204);
  });
  return app;
}
