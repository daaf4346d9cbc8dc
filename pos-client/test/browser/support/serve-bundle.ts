// Bundles a page entry with esbuild and serves it on 127.0.0.1 (a secure context, so WebCrypto
// and IndexedDB behave as on the POS's https origin).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";

export interface ServedPage {
  url: string;
  close: () => Promise<void>;
}

export async function servePage(entry: string): Promise<ServedPage> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const script = result.outputFiles[0]!.text;
  const html = `<!doctype html><meta charset="utf-8"><title>signing</title><script type="module" src="/entry.js"></script>`;
  const server: Server = createServer((req, res) => {
    if (req.url === "/entry.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(script);
    } else if (req.url === "/" || req.url === "/index.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
