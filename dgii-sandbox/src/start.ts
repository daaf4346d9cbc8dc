// Starts the sandbox on a port, for `npm start` and for vitest globalSetup in other packages.
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { createSandboxApp, type SandboxOptions } from "./app.ts";

export interface StartOptions extends SandboxOptions {
  /** 0 picks a free port. */
  port?: number;
  hostname?: string;
}

export interface RunningSandbox {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:8788 */
  url: string;
  port: number;
  close(): Promise<void>;
}

export function startSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const { port = 0, hostname = "127.0.0.1", ...appOptions } = options;
  const app = createSandboxApp(appOptions);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info: AddressInfo) => {
      resolve({
        url: `http://${hostname}:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            // Keep-alive sockets would hold close() open until they time out.
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      });
    });
    server.once("error", reject);
  });
}
