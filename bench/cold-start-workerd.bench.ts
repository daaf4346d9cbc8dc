// The worker's start-up measured in workerd itself (cold-start.bench.ts simulates it in Node's V8):
// each sample is a fresh `workerd serve` process (the workerd wrangler runs) given the upload
// `npm run deploy` sends (scripts/build-worker.mjs, then `wrangler deploy --dry-run`) as its modules,
// timed from the spawn until it listens (workerd compiles and evaluates the worker's start-up graph
// before it opens its sockets). The same is measured for an empty worker in the same run, so the
// difference is what our worker adds to a start: its compiling and top-level evaluation, with
// workerd's own start-up and sockets taken out. It is wall time on this machine (workerd's clock does
// not advance while code runs), so a loaded machine reads high: compare it with the empty worker's
// figure printed beside it. Under wrangler.toml's compatibility date (2026-11-17: new_module_registry),
// and again with legacy_module_registry, which compiles every module of the upload at start.
// COLD_START_SAMPLES (default 5) sets the fresh workerd processes per case; the median is printed.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { buildWorker } from "../scripts/build-worker.mjs";
import { freePort, root, wranglerBin, wranglerEnv } from "../scripts/lib.mjs";
import { percentile, report } from "./lib.ts";

const SAMPLES = Number(process.env.COLD_START_SAMPLES ?? 5);
const GOAL_MS = 50;
const COMPATIBILITY_DATE = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(
  readFileSync(join(root, "wrangler.toml"), "utf8"),
)![1]!;
// The workerd binary wrangler itself runs (one copy in the tree: package.json's overrides).
const workerdBin = join(
  dirname(createRequire(join(root, "package.json")).resolve("workerd/package.json")),
  "bin/workerd",
);

/** `wrangler deploy --dry-run` of the build's entry, as `npm run deploy` uploads it: the upload's folder. */
function upload(): string {
  const out = mkdtempSync(join(tmpdir(), "ecf-cold-workerd-"));
  const args = ["deploy", "--dry-run", "--outdir", out, "-c", "wrangler.toml", "--no-bundle", "worker/dist/index.js"];
  const r = spawnSync(wranglerBin, args, { cwd: root, env: wranglerEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
  return out;
}

/** A workerd configuration serving the ES modules in `folder` (entry index.js) on `port`. */
function configure(folder: string, flags: string[], port: number): string {
  const modules = readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".js"))
    .sort((a, b) => (a === "index.js" ? -1 : b === "index.js" ? 1 : a.localeCompare(b)))
    .map((f) => `(name = ${JSON.stringify(f)}, esModule = embed ${JSON.stringify(f)})`);
  const file = join(folder, `bench-${flags.join("-") || "default"}.capnp`);
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules.join(", ")}],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  compatibilityFlags = [${flags.map((f) => JSON.stringify(f)).join(", ")}],
  bindings = [(name = "API_VERSION", text = "bench")],
);
`,
  );
  return file;
}

/** True once something accepts a connection on the loopback `port`. */
const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), done(true)));
    socket.once("error", () => (socket.destroy(), done(false)));
  });

/** One fresh workerd serving `folder`: milliseconds from its spawn until it listens. */
async function startOnce(folder: string, flags: string[]): Promise<number> {
  const port = await freePort();
  const config = configure(folder, flags, port);
  const started = performance.now();
  const child = spawn(workerdBin, ["serve", relative(folder, config)], {
    cwd: folder,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`workerd exited ${child.exitCode}:\n${stderr}`);
      if (performance.now() - started > 30_000) throw new Error(`workerd did not listen in 30 s:\n${stderr}`);
      if (await listening(port)) return performance.now() - started;
      // Not listening yet: workerd is still starting (a bench polls; no test waits like this).
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    child.kill("SIGKILL");
  }
}

/** SAMPLES fresh starts of each case, interleaved so that a change of load touches every case alike. */
async function measure(cases: Record<string, [string, string[]]>): Promise<Record<string, number[]>> {
  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < SAMPLES; i++)
    for (const [name, [folder, flags]] of Object.entries(cases)) runs[name]!.push(await startOnce(folder, flags));
  return runs;
}

const folders: string[] = [];
try {
  await buildWorker();
  const worker = upload();
  folders.push(worker);
  const empty = mkdtempSync(join(tmpdir(), "ecf-cold-workerd-empty-"));
  folders.push(empty);
  writeFileSync(join(empty, "index.js"), 'export default { fetch() { return new Response("ok"); } };\n');

  const runs = await measure({
    worker: [worker, []],
    legacy: [worker, ["legacy_module_registry"]],
    empty: [empty, []],
  });
  const median = (name: string) => percentile(runs[name]!, 50);
  report(
    `worker start-up in workerd (${COMPATIBILITY_DATE}, new_module_registry), beyond an empty worker's (wall; goal ≤ ${GOAL_MS})`,
    median("worker") - median("empty"),
    "ms",
  );
  report(
    "worker start-up in workerd, legacy_module_registry (every module compiled), beyond an empty worker's (wall)",
    median("legacy") - median("empty"),
    "ms",
  );
  report("worker: workerd spawned until it listens (wall)", median("worker"), "ms");
  report("reference: an empty worker, workerd spawned until it listens (wall)", median("empty"), "ms");
} finally {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
