#!/usr/bin/env node
// `npm start`: the whole product on this machine. Applies local D1 migrations and builds the POS
// client and the console (each when its sources changed), runs the worker (wrangler dev, state under
// .wrangler/) on :8787 and the DGII sandbox on :8788 (its journal under .wrangler/dgii-sandbox),
// seeds demo data if absent, prints one screen (the URLs, the demo logins) and then one line per
// request, keeps both running (a process that dies or stops answering is reported and restarted),
// and stops everything on Ctrl-C.
// A second copy beside the first (the start test does this) sets PORT, SANDBOX_PORT,
// INSPECTOR_PORT and ECF_STATE_DIR (its own D1/R2 state and demo credentials); SMTP_PORT is then
// picked by the sandbox when it binds it, and kept across its restarts.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  credentialsFileFor,
  ensureDevVars,
  forgetRunningCopy,
  recordRunningCopy,
  migrationArgs,
  root,
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
import { quietDevOutput } from "./dev-output.mjs";

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

/** Runs `work()`, printing one line when it is done with the time it took (or that it was current). */
async function step(name, work) {
  const began = performance.now();
  const what = await work();
  console.log(`${name}: ${what} (${((performance.now() - began) / 1000).toFixed(1)} s)`);
}

/** A command run to its end with its output kept, shown only when it fails. */
function quietly(cmd, args, options = {}) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], ...options });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("error", fail);
    child.once("exit", (code, signal) =>
      code === 0 ? done(output) : fail(new Error(`${cmd} ${args.join(" ")} failed (${code ?? signal}):\n${output}`)),
    );
  });
}

/** SHA-256 over the files under `paths` (relative to the root; folders walked, `skip` names left out). */
function hashOf(paths, skip = new Set()) {
  const hash = createHash("sha256");
  const walk = (path) => {
    const full = join(root, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) if (!skip.has(name)) walk(join(path, name));
    } else hash.update(`${path}\0`).update(readFileSync(full)).update("\0");
  };
  for (const path of paths) walk(path);
  return hash.digest("hex");
}

/**
 * The local D1 migrations, applied by wrangler (~15 s here even with nothing to apply), so skipped
 * when the migrations are those last applied to this state (a marker beside the database, gone with
 * it). A state without a database (a fresh ECF_STATE_DIR) gets a copy of a database just migrated,
 * kept per set of migrations under .wrangler/ (the file's name comes from the database id, not the
 * state's path).
 */
async function migrate() {
  const d1 = join(persist, "v3", "d1");
  const marker = join(d1, "ecf-migrations.sha256");
  // wrangler's release too: a database kept by another miniflare may not be one this one reads.
  const wanted = hashOf(["migrations", "node_modules/wrangler/package.json"]);
  const databases = join(d1, "miniflare-D1DatabaseObject");
  const hasDatabase = existsSync(databases) && readdirSync(databases).some((f) => f.endsWith(".sqlite"));
  if (hasDatabase && existsSync(marker) && readFileSync(marker, "utf8") === wanted) return "current";
  const template = join(root, ".wrangler", "migrated-d1", wanted);
  if (!hasDatabase && existsSync(template)) {
    cpSync(template, d1, { recursive: true });
    return "copied from a freshly migrated database";
  }
  await quietly(wranglerBin, migrationArgs(persist), { env: wranglerEnv });
  mkdirSync(d1, { recursive: true });
  writeFileSync(marker, wanted);
  if (!hasDatabase && !existsSync(template)) {
    // Copied aside, then renamed into place whole: a copy running beside this one never reads half.
    const copy = `${template}.${process.pid}`;
    cpSync(d1, copy, { recursive: true });
    try {
      renameSync(copy, template);
    } catch {
      rmSync(copy, { recursive: true, force: true }); // another copy placed it first
    }
  }
  return "applied";
}

/**
 * The POS client and the console, built into the assets (dist/pos, dist/app) when their sources
 * (theirs, the shared domain's, the SDK's, the lockfile) differ from those of the last build.
 */
const UI_INPUTS = ["pos-client", "console", "shared", "sdk", "package-lock.json"];
async function buildUi() {
  const marker = join(root, ".wrangler", "ui-build.sha256");
  const wanted = hashOf(UI_INPUTS, new Set(["node_modules", "dist", "test", ".wrangler"]));
  const built = ["pos", "app"].every((dir) => existsSync(join(root, "dist", dir, "index.html")));
  if (built && existsSync(marker) && readFileSync(marker, "utf8") === wanted) return "current";
  await Promise.all(["@ecf/pos-client", "@ecf/console"].map((w) => quietly("npm", ["run", "build", "-w", w])));
  mkdirSync(dirname(marker), { recursive: true });
  writeFileSync(marker, wanted);
  return "built";
}

ensureDevVars();
// Independent steps run side by side: the migrations, the POS and console builds, the sandbox and
// the worker's build; wrangler starts once the API has what it needs (its database, its build), and
// the UI builds (only when their sources changed) finish meanwhile: the seed waits for them.
mkdirSync(join(root, "dist"), { recursive: true });
// The API reference's script (Scalar) beside the POS among the worker's static assets: /docs offline.
placeDocsAssets();
const migrated = step("D1 migrations", migrate);
const uiBuilt = step("POS client and console", buildUi);
// Awaited later; a failure before then is reported there, not as an unhandled rejection.
for (const pending of [migrated, uiBuilt]) pending.catch(() => {});
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
        ...(port !== "8787" ? { PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
      },
    }),
    {
      env: { ...wranglerEnv, ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}) },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    const quiet = quietDevOutput({ live: () => running });
    from.setEncoding("utf8");
    from.on("data", (chunk) => to.write(quiet(chunk)));
  }
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

let running = false; // the banner is out: requests are shown from then on
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
  const workerBuilt = startWorkerBuild();
  workerBuilt.then((build) => services.push(build)).catch(() => {});
  await Promise.all([
    waitForUrl(`${SANDBOX_URL}/`, { child: sandbox.child }).then(() => (smtpPort === "0" ? smtpBound : undefined)),
    workerBuilt,
    migrated,
  ]);
  const worker = supervise({ name: "worker", start: startWorker, healthUrl: `${WORKER_URL}/health`, onGiveUp: giveUp });
  services.push(worker);
  await waitForUrl(`${WORKER_URL}/health`, { timeoutMs: 120_000, child: worker.child });
  const healthAfter = process.uptime();
  const { version } = await (await fetch(`${WORKER_URL}/health`)).json();
  recordRunningCopy({ workerUrl: WORKER_URL, sandboxUrl: SANDBOX_URL, stateDir: persist, credentialsFile });
  // New assets reload the worker (wrangler watches them): the seed's requests come after that.
  await uiBuilt;
  await waitForUrl(`${WORKER_URL}/health`, { timeoutMs: 120_000, child: worker.child });
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
  console.log(banner(demo, { version, healthAfter }));
  running = true;
} catch (error) {
  console.error(String(error?.message ?? error));
  void stopAll(1);
}

/** What a user needs to begin: every URL and every demo login, on one screen. */
function banner(demo, { version, healthAfter }) {
  const admin = `WORKER_URL=${WORKER_URL} npm run admin --`;
  const pair = `${admin} devices:create --company ${demo.company.id} --name "Caja 1"`;
  return `
ecf-edge ${version} is running (/health answered ${healthAfter.toFixed(1)} s after the start):
  API worker    ${WORKER_URL}   (health: ${WORKER_URL}/health)
  API reference ${WORKER_URL}/docs   (OpenAPI: ${WORKER_URL}/openapi.json)
  Console       ${WORKER_URL}/app/   (owner ${demo.console.email}, password ${demo.console.password})
  Point of sale ${WORKER_URL}/pos/   (cashier ${demo.cashier.name}, PIN ${demo.cashier.pin})
  DGII sandbox  ${SANDBOX_URL}   (e-mails sent: ${SANDBOX_URL}/__mail, SMTP on 127.0.0.1:${smtpPort})
Demo logins:
  API key       ${demo.company.apiKey}   secret ${demo.company.apiSecret}   (${demo.company.name}, POST /login)
  Partner key   ${demo.partner.apiKey}   secret ${demo.partner.apiSecret}   (issuers ${demo.partner.issuers.join(", ")})
  Till          pair a till: ${pair}; then sign in as the cashier
  All of them   ${credentialsFile}   (again: WORKER_URL=${WORKER_URL} npm run seed)
One line per request follows. A process that dies is restarted. Press Ctrl-C to stop.`;
}
