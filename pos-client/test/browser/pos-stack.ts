// The whole product on this machine for the POS browser tests and the bench: the POS built by
// Vite, and the shared local stack (DGII sandbox + `wrangler dev` with its own state, see
// scripts/local-stack.ts), plus helpers to read the worker's local D1 and R2. Node only.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { root as ROOT, wranglerBin as WRANGLER, wranglerEnv as WRANGLER_ENV } from "../../../scripts/lib.mjs";
import { startLocalStack } from "../../../scripts/local-stack.ts";

export { ROOT };

export interface Stack {
  workerUrl: string;
  sandboxUrl: string;
  persistDir: string;
  adminSecret: string;
  admin: <T = any>(method: string, path: string, body?: unknown) => Promise<T>;
  /** Runs a read-only SQL statement against the worker's local D1 (the directory). */
  sql: <T = Record<string, unknown>>(statement: string) => T[];
  /** The issuer's receipts as its ledger holds them (GET /reports/encf with a key of its own). */
  receipts: (companyId: string) => Promise<{ encf: string; estado: string; source: string }[]>;
  /** An archived object from the worker's local R2. */
  archived: (key: string) => string;
  stop: () => Promise<void>;
}

function run(cmd: string, args: string[], cwd = ROOT): string {
  const r = spawnSync(cmd, args, { cwd, env: WRANGLER_ENV, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * fetch, after one turn of the event loop. `sql` and `archived` run wrangler synchronously and
 * block the loop for seconds, long enough for the worker to close an idle keep-alive connection
 * without the pool noticing; the next fetch would then be written to that dead socket ("other
 * side closed"). The turn lets the pool see the close first. A request refused that way never
 * reached the server, so it is sent once more.
 */
export async function fetchAfterSyncCalls(url: string, init?: RequestInit): Promise<Response> {
  await new Promise((resolve) => setImmediate(resolve));
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code !== "UND_ERR_SOCKET" || cause.message !== "other side closed") throw error;
    return fetch(url, init);
  }
}

/**
 * Vite's build of a front end into the worker's assets, unless `npm test` built it already for the
 * whole run (it names them in ECF_TEST_FRONTENDS_BUILT): a build per test file would also empty
 * the folder another file's stack is serving.
 */
export function buildFrontEnd(workspace: "pos-client" | "console"): void {
  if ((process.env.ECF_TEST_FRONTENDS_BUILT ?? "").split(",").includes(workspace)) return;
  run(join(ROOT, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], join(ROOT, workspace));
}

export function buildPos(): void {
  buildFrontEnd("pos-client");
}

/**
 * `frozen` (the default): serve what `npm run deploy` uploads, built once, so edits in the tree
 * during a long run do not reload it; `frozen: false`: wrangler dev's own build, reloading on edits.
 */
export async function startStack(options: { frozen?: boolean } = {}): Promise<Stack> {
  // The sandbox judges at once, so a receipt's final state is there on the first poll.
  // POS_STACK_LOG=file keeps wrangler dev's output, to see what the worker did during a run.
  const { workerUrl, sandboxUrl, adminSecret, persistDir, stop } = await startLocalStack({
    processingMs: 0,
    frozen: options.frozen ?? true,
    ...(process.env.POS_STACK_LOG ? { logFile: process.env.POS_STACK_LOG } : {}),
  });
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const isForm = body instanceof FormData;
    const res = await fetchAfterSyncCalls(`${workerUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${adminSecret}`,
        ...(body === undefined || isForm ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
    return json as T;
  };
  const sql = <T>(statement: string): T[] => {
    // The running worker may hold the SQLite file for a moment (SQLITE_BUSY): read again shortly.
    for (let attempt = 1; ; attempt++) {
      try {
        const out = run(WRANGLER, [
          "d1",
          "execute",
          "DB",
          "--local",
          "-c",
          "wrangler.toml",
          "--persist-to",
          persistDir,
          "--json",
          "--command",
          statement,
        ]);
        return (JSON.parse(out) as { results: T[] }[])[0]!.results;
      } catch (error) {
        if (attempt >= 5 || !/SQLITE_BUSY|database is locked/.test(String(error))) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500 * attempt);
      }
    }
  };
  const archived = (key: string): string =>
    run(WRANGLER, [
      "r2",
      "object",
      "get",
      `ecf-edge-archive/${key}`,
      "--local",
      "-c",
      "wrangler.toml",
      "--persist-to",
      persistDir,
      "--pipe",
    ]);
  const tokens = new Map<string, string>();
  const receipts = async (companyId: string) => {
    if (!tokens.has(companyId)) {
      const key = await admin<{ apiKey: string; apiSecret: string }>("POST", "/admin/keys", {
        ownerType: "company",
        ownerId: companyId,
        kind: "test",
      });
      const login = await fetchAfterSyncCalls(`${workerUrl}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(key),
      });
      tokens.set(companyId, ((await login.json()) as { token: string }).token);
    }
    const res = await fetchAfterSyncCalls(`${workerUrl}/reports/encf?pageSize=1000`, {
      headers: { Authorization: `Bearer ${tokens.get(companyId)}` },
    });
    if (!res.ok) throw new Error(`GET /reports/encf → ${res.status} ${await res.text()}`);
    return ((await res.json()) as { items: { encf: string; estado: string; source: string }[] }).items;
  };
  return { workerUrl, sandboxUrl, persistDir, adminSecret, admin, sql, receipts, archived, stop };
}
