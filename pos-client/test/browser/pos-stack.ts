// The whole product on this machine for the POS browser tests and the bench: the POS built by
// Vite, the DGII sandbox and `wrangler dev` (its own --persist-to temp dir, migrations applied
// first), each on a free port. Node only.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
const ENV = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };

export interface Stack {
  workerUrl: string;
  sandboxUrl: string;
  persistDir: string;
  adminSecret: string;
  admin: <T = any>(method: string, path: string, body?: unknown) => Promise<T>;
  /** Runs a read-only SQL statement against the worker's local D1. */
  sql: <T = Record<string, unknown>>(statement: string) => T[];
  /** An archived object from the worker's local R2. */
  archived: (key: string) => string;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, timeoutMs: number, child: ChildProcess, output: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited (${child.exitCode})\n${output()}`);
    try {
      // wrangler's proxy holds connections while the worker builds: bound each attempt.
      await fetch(url, { signal: AbortSignal.timeout(5000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms\n${output()}`);
}

function run(cmd: string, args: string[], cwd = ROOT): string {
  const r = spawnSync(cmd, args, { cwd, env: ENV, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(cmd, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out = (out + d).slice(-20_000)));
  child.stderr!.on("data", (d) => (out = (out + d).slice(-20_000)));
  return { child, output: () => out };
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
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      resolve();
    }
  });
}

export function buildPos(): void {
  run(join(ROOT, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], join(ROOT, "pos-client"));
}

export async function startStack(): Promise<Stack> {
  const persistDir = mkdtempSync(join(tmpdir(), "ecf-pos-e2e-"));
  const [workerPort, sandboxPort] = [await freePort(), await freePort()];
  const adminSecret = randomBytes(16).toString("hex");
  const sandbox = start(process.execPath, ["--import", "tsx", "dgii-sandbox/src/server.ts"], { ...ENV, SANDBOX_PORT: String(sandboxPort), SANDBOX_PROCESSING_MS: "0" });
  run(WRANGLER, ["d1", "migrations", "apply", "DB", "--local", "-c", "wrangler.toml", "--persist-to", persistDir]);
  const vars = {
    JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_SECRET: adminSecret,
    MASTER_KEY: randomBytes(32).toString("base64"),
    DGII_SANDBOX_URL: `http://127.0.0.1:${sandboxPort}`,
  };
  const worker = start(
    WRANGLER,
    ["dev", "-c", "wrangler.toml", "--local", "--ip", "127.0.0.1", "--port", String(workerPort), "--inspector-port", String(await freePort()), "--persist-to", persistDir, "--show-interactive-dev-session=false", ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`])],
    ENV,
  );
  const workerUrl = `http://127.0.0.1:${workerPort}`;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const stop = async () => {
    await Promise.all([stopChild(worker.child), stopChild(sandbox.child)]);
    rmSync(persistDir, { recursive: true, force: true });
  };
  try {
    await waitFor(`${sandboxUrl}/`, 60_000, sandbox.child, sandbox.output);
    await waitFor(`${workerUrl}/health`, 120_000, worker.child, worker.output);
  } catch (error) {
    await stop();
    throw error;
  }
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const isForm = body instanceof FormData;
    const res = await fetch(`${workerUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${adminSecret}`, ...(body === undefined || isForm ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
    return json as T;
  };
  const sql = <T>(statement: string): T[] => {
    const out = run(WRANGLER, ["d1", "execute", "DB", "--local", "-c", "wrangler.toml", "--persist-to", persistDir, "--json", "--command", statement]);
    return (JSON.parse(out) as { results: T[] }[])[0]!.results;
  };
  const archived = (key: string): string =>
    run(WRANGLER, ["r2", "object", "get", `ecf-edge-archive/${key}`, "--local", "-c", "wrangler.toml", "--persist-to", persistDir, "--pipe"]);
  return { workerUrl, sandboxUrl, persistDir, adminSecret, admin, sql, archived, stop };
}
