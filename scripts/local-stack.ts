// A private copy of the product for one run (the certification script, the benchmarks, the POS
// browser tests): the DGII sandbox in this process (`startSandbox`, a free port) and `wrangler dev`
// on a free port with its own --persist-to temp dir (migrations applied first), its own secrets,
// and DGII_SANDBOX_URL pointing at that sandbox. `stop()` ends exactly what it started.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSandbox, type RunningSandbox } from "../dgii-sandbox/src/start.ts";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
export const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
/** Offline machine (DESIGN.md): no Cloudflare fetches, no metrics. */
export const WRANGLER_ENV = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };

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
   * and drop its in-memory queue. Default: wrangler dev's own build, which reloads on every edit.
   */
  frozen?: boolean;
}

export interface LocalStack {
  workerUrl: string;
  sandboxUrl: string;
  adminSecret: string;
  /** The worker's local D1/R2 state (wrangler --persist-to). */
  persistDir: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True when `url` answers at all within `ms`. */
export async function answers(url: string, ms = 2000): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(ms) });
    return true;
  } catch {
    return false;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
      resolve();
    }, 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      // wrangler runs workerd as a child: signal the whole process group we created.
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

export async function startLocalStack(options: StackOptions = {}): Promise<LocalStack> {
  const persistDir = mkdtempSync(join(tmpdir(), "ecf-stack-"));
  const bundleDir = options.frozen ? mkdtempSync(join(tmpdir(), "ecf-stack-bundle-")) : undefined;
  let sandbox: RunningSandbox | undefined;
  let worker: ChildProcess | undefined;
  let output = "";
  const stop = async () => {
    if (worker) await stopChild(worker);
    if (sandbox) await sandbox.close().catch(() => {});
    rmSync(persistDir, { recursive: true, force: true });
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  };
  try {
    sandbox = await startSandbox({ port: 0, ...(options.processingMs !== undefined ? { processingMs: options.processingMs } : {}) });
    const migrate = spawnSync(WRANGLER, ["d1", "migrations", "apply", "DB", "--local", "-c", "wrangler.toml", "--persist-to", persistDir], { cwd: ROOT, env: WRANGLER_ENV, encoding: "utf8" });
    if (migrate.status !== 0) throw new Error(`wrangler d1 migrations apply failed:\n${migrate.stdout}\n${migrate.stderr}`);

    const adminSecret = randomBytes(16).toString("hex");
    const vars: Record<string, string> = {
      JWT_SECRET: randomBytes(32).toString("hex"),
      ADMIN_SECRET: adminSecret,
      MASTER_KEY: randomBytes(32).toString("base64"),
      DGII_SANDBOX_URL: sandbox.url,
      ...(options.pollDelaysMs ? { DGII_POLL_DELAYS_MS: options.pollDelaysMs } : {}),
      ...options.vars,
    };
    let entry: string[] = [];
    if (bundleDir) {
      const bundle = spawnSync(WRANGLER, ["deploy", "--dry-run", "--outdir", bundleDir, "-c", "wrangler.toml"], { cwd: ROOT, env: WRANGLER_ENV, encoding: "utf8" });
      if (bundle.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${bundle.stdout}\n${bundle.stderr}`);
      // The bundle and its additional modules (xmllint.wasm) as they are; nothing to rebuild.
      entry = [join(bundleDir, "index.js"), "--no-bundle"];
    }
    const [port, inspector] = [await freePort(), await freePort()];
    worker = spawn(
      WRANGLER,
      ["dev", ...entry, "-c", "wrangler.toml", "--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--persist-to", persistDir, "--show-interactive-dev-session=false", ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`])],
      { cwd: ROOT, env: WRANGLER_ENV, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    const keep = (d: Buffer) => {
      output = (output + d).slice(-20_000);
      if (options.logFile) appendFileSync(options.logFile, d);
    };
    worker.stdout!.on("data", keep);
    worker.stderr!.on("data", keep);
    const workerUrl = `http://127.0.0.1:${port}`;
    const until = Date.now() + 180_000;
    for (;;) {
      if (worker.exitCode !== null) throw new Error(`wrangler dev exited (${worker.exitCode}):\n${output}`);
      // wrangler's proxy holds connections while the worker builds: bound each attempt.
      if (await answers(`${workerUrl}/health`, 5000)) break;
      if (Date.now() > until) throw new Error(`wrangler dev did not answer within 180 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    return { workerUrl, sandboxUrl: sandbox.url, adminSecret, persistDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
