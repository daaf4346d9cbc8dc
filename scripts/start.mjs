#!/usr/bin/env node
// `npm start`: the whole product on this machine. Applies local D1 migrations, builds the POS
// client, runs the worker (wrangler dev, state under .wrangler/) on :8787 and the DGII sandbox on
// :8788, seeds demo data if absent, prints the URLs, and stops everything on Ctrl-C.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensureDevVars, root, run, startChild, waitForUrl, wranglerBin, wranglerEnv } from "./lib.mjs";
import { seed } from "./seed.mjs";

const WORKER_URL = "http://127.0.0.1:8787";
const SANDBOX_URL = "http://127.0.0.1:8788";
const persist = join(root, ".wrangler", "state");

ensureDevVars();
console.log("Applying local D1 migrations…");
run(wranglerBin, ["d1", "migrations", "apply", "DB", "--local", "-c", "wrangler.toml", "--persist-to", persist], { env: wranglerEnv });

if (existsSync(join(root, "pos-client", "index.html"))) {
  console.log("Building the POS client…");
  run("npm", ["run", "build", "-w", "@ecf/pos-client"]);
}

const children = [
  startChild("sandbox", process.execPath, ["--import", "tsx", "dgii-sandbox/src/server.ts"], {
    env: { ...process.env, SANDBOX_PORT: "8788" },
  }),
  startChild(
    "worker",
    wranglerBin,
    ["dev", "-c", "wrangler.toml", "--local", "--ip", "127.0.0.1", "--port", "8787", "--persist-to", persist, "--show-interactive-dev-session=false"],
    { env: wranglerEnv },
  ),
];

let stopping = false;
function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log("\nStopping…");
  for (const child of children) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
  }
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));
for (const child of children) child.on("exit", () => stopAll(1));

try {
  await waitForUrl(`${SANDBOX_URL}/`);
  await waitForUrl(`${WORKER_URL}/health`, 120_000);
  await seed(WORKER_URL);
  console.log(`
ecf-edge is running:
  API worker    ${WORKER_URL}   (docs: ${WORKER_URL}/docs, health: ${WORKER_URL}/health)
  DGII sandbox  ${SANDBOX_URL}
Press Ctrl-C to stop.`);
} catch (error) {
  console.error(String(error));
  stopAll(1);
}
