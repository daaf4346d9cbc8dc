// Starts the sandbox on a port, for `npm start` and for vitest globalSetup in other packages.
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createSandboxApp, type SandboxOptions } from "./app.ts";
import { startMailSink } from "./mail-sink.ts";

export interface StartOptions extends SandboxOptions {
  /** 0 picks a free port. */
  port?: number;
  hostname?: string;
  /** Also run the local SMTP sink on this port (0: a free one), shown at GET /__mail. */
  smtpPort?: number;
}

export interface RunningSandbox {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:8788 */
  url: string;
  port: number;
  /** The SMTP sink's port, when one was asked for. */
  smtpPort?: number;
  close(): Promise<void>;
}

export async function startSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const { port = 0, hostname = "127.0.0.1", smtpPort, ...appOptions } = options;
  const mail = smtpPort === undefined ? undefined : await startMailSink(smtpPort, hostname);
  const app = createSandboxApp({ ...appOptions, mail });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info: AddressInfo) => {
      resolve({
        url: `http://${hostname}:${info.port}`,
        port: info.port,
        ...(mail ? { smtpPort: mail.port } : {}),
        close: () =>
          Promise.all([
            mail?.close(),
            new Promise<void>((done, fail) => {
              server.close((error) => (error ? fail(error) : done()));
              // Keep-alive sockets would hold close() open until they time out.
              if ("closeAllConnections" in server) server.closeAllConnections();
            }),
          ]).then(() => undefined),
      });
    });
    // Node closes a keep-alive connection idle for 5 s by default, the same moment workerd's pool
    // may pick it for the worker's next call to DGII: that call then fails with "Network
    // connection lost" and the receipt goes to contingency with DGII up. The side that reuses
    // connections must drop them first, so the sandbox keeps them far longer.
    if ("keepAliveTimeout" in server) {
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = 66_000;
    }
    server.once("error", reject);
  });
}
