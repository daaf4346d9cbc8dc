// A private copy of the product for one run (the certification script, the benchmarks, the POS
// browser tests): the DGII sandbox in this process (`startSandbox`, a free port) and `wrangler dev`
// on a free port with its own --persist-to temp dir (migrations applied first), its own secrets,
// and DGII_SANDBOX_URL pointing at that sandbox. `stop()` ends exactly what it started.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type RunningSandbox } from "@ecf/dgii-sandbox/start";
import { buildWorker } from "./build-worker.mjs";
import {
  applyMigrations,
  freePort,
  freshSecrets,
  root,
  stopChildren,
  waitForUrl,
  wranglerBin,
  wranglerDevArgs,
  wranglerEnv,
} from "./lib.mjs";

export interface StackOptions {
  /** Sandbox "processing" time before a track id has its result (default: the sandbox's 300 ms). */
  processingMs?: number;
  /** The worker's DGII_POLL_DELAYS_MS (comma-separated ms); default: the worker's own. */
  pollDelaysMs?: string;
  /** Extra `--var NAME:value` for wrangler dev. */
  vars?: Record<string, string>;
  /** Append the worker's output (wrangler dev, console.log of the worker) to this file. */
  logFile?: string;
  /**
   * Serve what `npm run deploy` uploads (scripts/build-worker.mjs: the entry and its lazily
   * imported chunks, given to wrangler with --no-bundle), built once, so edits to the sources during
   * a long run (another developer in the same tree) do not reload the worker midway and cut the
   * requests in flight. Default: wrangler dev's own one-script build, which reloads on every edit.
   */
  frozen?: boolean;
}

export interface LocalStack {
  workerUrl: string;
  sandboxUrl: string;
  adminSecret: string;
  /** The worker's local D1/R2 state (wrangler --persist-to). */
  persistDir: string;
  /** wrangler dev's inspector (Chrome DevTools protocol), e.g. for the worker's heap. */
  inspectorPort: number;
  /** Stops wrangler dev and starts it again on the same ports and state: a fresh isolate. */
  restartWorker(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Set by `npm test` for every project it runs: a split build of the worker made once for the whole
 * run, and a D1 state with the migrations applied, copied into each stack's own state.
 */
export const PREBUILT_WORKER = "ECF_TEST_WORKER_BUILD";
export const MIGRATED_STATE = "ECF_TEST_MIGRATED_STATE";
/**
 * Also set by `npm test`: a copy of the static assets (the POS, the console, /docs's script) made
 * once built, served by every stack instead of wrangler.toml's folder, which `npm start` (its own
 * tests among them) builds again in place: wrangler dev reloads when the folder it serves changes.
 */
export const ASSETS_COPY = "ECF_TEST_ASSETS";

let ownBuild: Promise<string> | undefined;
/** The split build's folder: the run's (PREBUILT_WORKER), or one built by this process on first use. */
function splitBuild(): Promise<string> {
  const prebuilt = process.env[PREBUILT_WORKER];
  if (prebuilt && existsSync(join(prebuilt, "index.js"))) return Promise.resolve(prebuilt);
  ownBuild ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "ecf-stack-build-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    await buildWorker({ outdir: dir });
    return dir;
  })();
  // Not memoized when it fails: the next stack builds again and reports its own error.
  ownBuild.catch(() => (ownBuild = undefined));
  return ownBuild;
}

/** A fresh local state with the migrations applied: a copy of the run's migrated state, when there is one. */
export function migratedState(persistDir: string): void {
  const template = process.env[MIGRATED_STATE];
  if (template && existsSync(template)) cpSync(template, persistDir, { recursive: true });
  else applyMigrations(persistDir, { quiet: true });
}

export async function startLocalStack(options: StackOptions = {}): Promise<LocalStack> {
  const persistDir = mkdtempSync(join(tmpdir(), "ecf-stack-"));
  let sandbox: RunningSandbox | undefined;
  let worker: ChildProcess | undefined;
  let output = "";
  const stop = async () => {
    if (worker) await stopChildren([worker], 5000);
    if (sandbox) await sandbox.close().catch(() => {});
    rmSync(persistDir, { recursive: true, force: true });
  };
  try {
    sandbox = await startSandbox({
      port: 0,
      smtpPort: 0,
      ...(options.processingMs !== undefined ? { processingMs: options.processingMs } : {}),
    });
    migratedState(persistDir);

    const secrets = freshSecrets();
    const [port, inspector] = [await freePort(), await freePort()];
    const workerUrl = `http://127.0.0.1:${port}`;
    const vars: Record<string, string> = {
      ...secrets,
      PUBLIC_URL: workerUrl,
      DGII_SANDBOX_URL: sandbox.url,
      SMTP_PORT: String(sandbox.smtpPort),
      ...(options.pollDelaysMs ? { DGII_POLL_DELAYS_MS: options.pollDelaysMs } : {}),
      ...options.vars,
    };
    // The entry and its chunks as they are (wrangler.toml's rule finds the chunks): nothing to rebuild.
    const entry = options.frozen ? [join(await splitBuild(), "index.js"), "--no-bundle"] : [];
    const assets = process.env[ASSETS_COPY];
    if (assets && existsSync(assets)) entry.push("--assets", assets);
    const launch = async () => {
      worker = spawn(
        wranglerBin,
        wranglerDevArgs({ entry, port, inspectorPort: inspector, persistTo: persistDir, vars }),
        {
          cwd: root,
          env: wranglerEnv,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      const keep = (d: Buffer) => {
        output = (output + d).slice(-20_000);
        if (options.logFile) appendFileSync(options.logFile, d);
      };
      worker.stdout!.on("data", keep);
      worker.stderr!.on("data", keep);
      try {
        await waitForUrl(`${workerUrl}/health`, { timeoutMs: 180_000, child: worker });
      } catch (error) {
        throw new Error(`wrangler dev: ${(error as Error).message}:\n${output}`);
      }
    };
    await launch();
    return {
      workerUrl,
      sandboxUrl: sandbox.url,
      adminSecret: secrets.ADMIN_SECRET,
      persistDir,
      inspectorPort: inspector,
      restartWorker: async () => {
        if (worker) await stopChildren([worker], 5000);
        await launch();
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
