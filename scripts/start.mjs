#!/usr/bin/env node
// `npm start`: the whole product on this machine. Applies local D1 migrations, builds the POS
// client, runs the worker (wrangler dev, state under .wrangler/) on :8787 and the DGII sandbox on
// :8788 (its journal under .wrangler/dgii-sandbox), seeds demo data if absent, prints the URLs, and stops everything on Ctrl-C.
// A second copy beside the first (the start test does this) sets PORT, SANDBOX_PORT,
// INSPECTOR_PORT and ECF_STATE_DIR (its own D1/R2 state and demo credentials).
import { join, resolve } from "node:path";
import { applyMigrations, ensureDevVars, freePort, root, run, startChild, stopChildren, waitForUrl, wranglerBin, wranglerDevArgs, wranglerEnv } from "./lib.mjs";
import { seed } from "./seed.mjs";
import { placeDocsAssets } from "./docs-assets.mjs";

const port = process.env.PORT ?? "8787";
const sandboxPort = process.env.SANDBOX_PORT ?? "8788";
const WORKER_URL = `http://127.0.0.1:${port}`;
const SANDBOX_URL = `http://127.0.0.1:${sandboxPort}`;
// The SMTP sink beside the sandbox (its mail at GET /__mail): 2525 for the first copy, a free port for a second.
const smtpPort = process.env.SMTP_PORT ?? (sandboxPort === "8788" ? "2525" : String(await freePort()));
const stateDir = process.env.ECF_STATE_DIR ? resolve(process.env.ECF_STATE_DIR) : undefined;
const persist = stateDir ?? join(root, ".wrangler", "state");
// The default keeps `npm run seed`'s file; a separate state dir keeps its own credentials.
const credentialsFile = stateDir ? join(stateDir, "demo-credentials.json") : undefined;
// The DGII sandbox remembers what it received across restarts, as DGII does (its journal).
const sandboxState = join(stateDir ?? join(root, ".wrangler"), "dgii-sandbox");

ensureDevVars();
console.log("Applying local D1 migrations…");
applyMigrations(persist);

console.log("Building the POS client…");
run("npm", ["run", "build", "-w", "@ecf/pos-client"]);
// The API reference's script (Scalar) beside the POS among the worker's static assets: /docs offline.
placeDocsAssets();

const children = [
  startChild("sandbox", process.execPath, ["--import", "tsx", "dgii-sandbox/src/server.ts"], {
    env: { ...process.env, SANDBOX_PORT: sandboxPort, SMTP_PORT: smtpPort, SANDBOX_STATE_DIR: sandboxState },
  }),
  startChild(
    "worker",
    wranglerBin,
    wranglerDevArgs({
      port,
      persistTo: persist,
      inspectorPort: process.env.INSPECTOR_PORT || undefined,
      // wrangler.toml points the worker at the sandbox's and the SMTP sink's default ports.
      vars: { ...(sandboxPort !== "8788" ? { DGII_SANDBOX_URL: SANDBOX_URL } : {}), ...(smtpPort !== "2525" ? { SMTP_PORT: smtpPort } : {}) },
    }),
    { env: wranglerEnv },
  ),
];

let stopping = false;
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log("\nStopping…");
  // Each child leads its own process group (wrangler's workerd included): wait until all are gone.
  await stopChildren(children);
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));
for (const child of children) child.on("exit", () => void stopAll(1));

try {
  await waitForUrl(`${SANDBOX_URL}/`, { child: children[0] });
  await waitForUrl(`${WORKER_URL}/health`, { timeoutMs: 120_000, child: children[1] });
  const demo = await seed(WORKER_URL, credentialsFile);
  // DGII's directory (the sandbox's) lists the demo issuers as electronic receivers on this worker
  // (its /{rnc} receiver paths), so they deliver their e-CF to each other through the real endpoints.
  const receivers = demo.partner.issuers.map((rnc) => ({
    nombre: `Demo ${rnc}`,
    rnc,
    urlRecepcion: `${WORKER_URL}/${rnc}`,
    urlAceptacion: `${WORKER_URL}/${rnc}`,
    urlOpcional: null,
  }));
  const listed = await fetch(`${SANDBOX_URL}/__sandbox/directory`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(receivers) });
  if (!listed.ok) throw new Error(`the sandbox refused the demo directory: HTTP ${listed.status}`);
  console.log(`
ecf-edge is running:
  API worker    ${WORKER_URL}   (docs: ${WORKER_URL}/docs, health: ${WORKER_URL}/health)
  Point of sale ${WORKER_URL}/pos/   (pair a till: npm run admin -- devices:create --company ${demo.company.id} --name "Caja 1"; cashier ${demo.cashier.name}, PIN ${demo.cashier.pin})
  DGII sandbox  ${SANDBOX_URL}   (e-mails the worker sent: ${SANDBOX_URL}/__mail, SMTP on 127.0.0.1:${smtpPort})
Press Ctrl-C to stop.`);
} catch (error) {
  console.error(String(error));
  void stopAll(1);
}
