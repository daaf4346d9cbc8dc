#!/usr/bin/env node
// `npm start`: the whole product on this machine. Applies local D1 migrations, builds the POS
// client and the console, runs the worker (wrangler dev, state under .wrangler/) on :8787 and the DGII sandbox on
// :8788 (its journal under .wrangler/dgii-sandbox), seeds demo data if absent, prints the URLs,
// keeps both running (a process that dies or stops answering is reported and restarted), and
// stops everything on Ctrl-C.
// A second copy beside the first (the start test does this) sets PORT, SANDBOX_PORT,
// INSPECTOR_PORT and ECF_STATE_DIR (its own D1/R2 state and demo credentials); SMTP_PORT is then
// picked by the sandbox when it binds it, and kept across its restarts.
import { join, resolve } from "node:path";
import {
  applyMigrations,
  credentialsFileFor,
  ensureDevVars,
  forgetRunningCopy,
  recordRunningCopy,
  root,
  run,
  startChild,
  stopChildren,
  waitForUrl,
  wranglerBin,
  wranglerDevArgs,
  wranglerEnv,
} from "./lib.mjs";
import { readSaved, registerSigners, seed } from "./seed.mjs";
import { placeDocsAssets } from "./docs-assets.mjs";
import { workerDist } from "./build-worker.mjs";
import { supervise } from "./supervisor.mjs";
import { collapseModuleTable } from "./module-table.mjs";

const port = process.env.PORT ?? "8787";
const sandboxPort = process.env.SANDBOX_PORT ?? "8788";
const WORKER_URL = `http://127.0.0.1:${port}`;
const SANDBOX_URL = `http://127.0.0.1:${sandboxPort}`;
const stateDir = process.env.ECF_STATE_DIR ? resolve(process.env.ECF_STATE_DIR) : undefined;
const persist = stateDir ?? join(root, ".wrangler", "state");
const credentialsFile = credentialsFileFor(WORKER_URL, stateDir);
// The DGII sandbox remembers what it received across restarts, as DGII does (its journal).
const sandboxState = join(stateDir ?? join(root, ".wrangler"), "dgii-sandbox");
// The worker as deployed (scripts/build-worker.mjs: its entry and its lazily loaded parts as modules
// of their own, given to wrangler as they are: --no-bundle, already minified), built again on every
// change; a second copy builds into its own state folder.
const workerBuild = stateDir ? join(stateDir, "worker-build") : workerDist;
// The SMTP sink beside the sandbox (its mail at GET /__mail): 2525 for the first copy; for a
// second, the port the sandbox binds (0: any free one), read from what it prints, then kept.
let smtpPort = process.env.SMTP_PORT ?? (sandboxPort === "8788" ? "2525" : "0");

ensureDevVars();
console.log("Applying local D1 migrations…");
applyMigrations(persist);

console.log("Building the POS client and the console…");
run("npm", ["run", "build", "-w", "@ecf/pos-client"]);
run("npm", ["run", "build", "-w", "@ecf/console"]);
// The API reference's script (Scalar) beside the POS among the worker's static assets: /docs offline.
placeDocsAssets();

let resolveSmtp;
const smtpBound = new Promise((r) => (resolveSmtp = r));
function startSandbox() {
  const child = startChild("sandbox", process.execPath, ["--import", "tsx", "dgii-sandbox/src/server.ts"], {
    env: { ...process.env, SANDBOX_PORT: sandboxPort, SMTP_PORT: smtpPort, SANDBOX_STATE_DIR: sandboxState },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    const bound = /SMTP sink on [^:\s]+:(\d+)/.exec(String(chunk));
    if (bound) {
      smtpPort = bound[1];
      resolveSmtp(smtpPort);
    }
  });
  return child;
}

const startWorker = () => {
  const child = startChild(
    "worker",
    wranglerBin,
    wranglerDevArgs({
      entry: [join(workerBuild, "index.js"), "--no-bundle", "--no-minify"],
      port,
      persistTo: persist,
      inspectorPort: process.env.INSPECTOR_PORT || undefined,
      // wrangler.toml points the worker at the sandbox's and the SMTP sink's default ports.
      vars: {
        ...(sandboxPort !== "8788" ? { DGII_SANDBOX_URL: SANDBOX_URL } : {}),
        ...(smtpPort !== "2525" ? { SMTP_PORT: smtpPort } : {}),
      },
    }),
    {
      env: { ...wranglerEnv, ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}) },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const collapse = collapseModuleTable();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => process.stdout.write(collapse(chunk)));
  return child;
};

/**
 * The worker's build, kept up to date by a child of its own (esbuild's service with it, one process
 * group, stopped whole): resolves once the first build is written, with its stop().
 */
function startWorkerBuild() {
  const builder = startChild(
    "worker-build",
    process.execPath,
    [join(root, "scripts", "build-worker.mjs"), "--watch", "--outdir", workerBuild],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    builder.once("exit", (code) => reject(new Error(`the worker's build failed (${code})`)));
    builder.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      if (/worker built/.test(String(chunk))) resolve({ stop: () => stopChildren([builder]) });
    });
  });
}

/** DGII's directory (the sandbox's) lists the demo issuers as electronic receivers on this worker. */
let demoReceivers;
async function listDemoReceivers() {
  const listed = await fetch(`${SANDBOX_URL}/__sandbox/directory`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(demoReceivers),
  });
  if (!listed.ok) throw new Error(`the sandbox at ${SANDBOX_URL} refused the demo directory: HTTP ${listed.status}`);
}

let stopping = false;
const services = [];
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log("\nStopping…");
  forgetRunningCopy(WORKER_URL);
  // Each child leads its own process group (wrangler's workerd included): wait until all are gone.
  await Promise.all(services.map((s) => s.stop()));
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));
const giveUp = () => void stopAll(1);

try {
  const sandbox = supervise({
    name: "sandbox",
    start: startSandbox,
    healthUrl: `${SANDBOX_URL}/`,
    onGiveUp: giveUp,
    // A restarted sandbox reads its journal; the directory and the demo issuers' signers (held in
    // its memory) are given to it again.
    onUp: async (restarted) => {
      if (!restarted || !demoReceivers) return;
      await listDemoReceivers().catch((e) => console.error(`[sandbox] ${e.message}`));
      await registerSigners(SANDBOX_URL, readSaved(credentialsFile).certificates ?? {}).catch((e) =>
        console.error(`[sandbox] ${e.message}`),
      );
    },
  });
  services.push(sandbox);
  await waitForUrl(`${SANDBOX_URL}/`, { child: sandbox.child });
  if (smtpPort === "0") await smtpBound;
  console.log("Building the worker…");
  services.push(await startWorkerBuild());
  const worker = supervise({ name: "worker", start: startWorker, healthUrl: `${WORKER_URL}/health`, onGiveUp: giveUp });
  services.push(worker);
  await waitForUrl(`${WORKER_URL}/health`, { timeoutMs: 120_000, child: worker.child });
  recordRunningCopy({ workerUrl: WORKER_URL, sandboxUrl: SANDBOX_URL, stateDir: persist, credentialsFile });
  const demo = await seed(WORKER_URL, credentialsFile, { sandboxUrl: SANDBOX_URL });
  // The demo issuers deliver their e-CF to each other through the real receiver endpoints (/{rnc}).
  demoReceivers = demo.partner.issuers.map((rnc) => ({
    nombre: `Demo ${rnc}`,
    rnc,
    urlRecepcion: `${WORKER_URL}/${rnc}`,
    urlAceptacion: `${WORKER_URL}/${rnc}`,
    urlOpcional: null,
  }));
  await listDemoReceivers();
  const admin = `WORKER_URL=${WORKER_URL} npm run admin --`;
  console.log(`
ecf-edge is running:
  API worker    ${WORKER_URL}   (docs: ${WORKER_URL}/docs, health: ${WORKER_URL}/health)
  Point of sale ${WORKER_URL}/pos/   (pair a till: ${admin} devices:create --company ${demo.company.id} --name "Caja 1"; cashier ${demo.cashier.name}, PIN ${demo.cashier.pin})
  DGII sandbox  ${SANDBOX_URL}   (e-mails the worker sent: ${SANDBOX_URL}/__mail, SMTP on 127.0.0.1:${smtpPort})
  Demo credentials ${credentialsFile}   (again: WORKER_URL=${WORKER_URL} npm run seed)
A process that dies is restarted. Press Ctrl-C to stop.`);
} catch (error) {
  console.error(String(error?.message ?? error));
  void stopAll(1);
}
