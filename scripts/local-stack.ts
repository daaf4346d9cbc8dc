// A private copy of the product for one run (the certification script, the benchmarks, the POS
// browser tests): the DGII sandbox in this process (`startSandbox`, a free port) and `wrangler dev`
// on a free port with its own --persist-to temp dir (migrations applied first), its own secrets,
// and DGII_SANDBOX_URL pointing at that sandbox. `stop()` ends exactly what it started.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type RunningSandbox } from "@ecf/dgii-sandbox/start";
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
   * Bundle the worker once (`wrangler deploy --dry-run`) and serve that bundle, so edits to the
   * sources during a long run (another developer in the same tree) do not reload the worker midway
   * and cut the requests in flight. Default: wrangler dev's own build, which reloads on every edit.
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

export async function startLocalStack(options: StackOptions = {}): Promise<LocalStack> {
  const persistDir = mkdtempSync(join(tmpdir(), "ecf-stack-"));
  const bundleDir = options.frozen ? mkdtempSync(join(tmpdir(), "ecf-stack-bundle-")) : undefined;
  let sandbox: RunningSandbox | undefined;
  let worker: ChildProcess | undefined;
  let output = "";
  const stop = async () => {
    if (worker) await stopChildren([worker], 5000);
    if (sandbox) await sandbox.close().catch(() => {});
    rmSync(persistDir, { recursive: true, force: true });
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  };
  try {
    sandbox = await startSandbox({
      port: 0,
      smtpPort: 0,
      ...(options.processingMs !== undefined ? { processingMs: options.processingMs } : {}),
    });
    applyMigrations(persistDir, { quiet: true });

    const secrets = freshSecrets();
    const vars: Record<string, string> = {
      ...secrets,
      DGII_SANDBOX_URL: sandbox.url,
      SMTP_PORT: String(sandbox.smtpPort),
      ...(options.pollDelaysMs ? { DGII_POLL_DELAYS_MS: options.pollDelaysMs } : {}),
      ...options.vars,
    };
    let entry: string[] = [];
    if (bundleDir) {
      const bundle = spawnSync(wranglerBin, ["deploy", "--dry-run", "--outdir", bundleDir, "-c", "wrangler.toml"], {
        cwd: root,
        env: wranglerEnv,
        encoding: "utf8",
      });
      if (bundle.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${bundle.stdout}\n${bundle.stderr}`);
      // The bundle and any additional modules as they are; nothing to rebuild.
      entry = [join(bundleDir, "index.js"), "--no-bundle"];
    }
    const [port, inspector] = [await freePort(), await freePort()];
    const workerUrl = `http://127.0.0.1:${port}`;
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
