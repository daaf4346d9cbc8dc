// The worker's start-up: the CPU time to evaluate its bundle in a cold isolate (goal ≤ 100 ms),
// beside two references measured the same way in the same run: an empty module (what the method
// itself costs) and Hono alone (a one-route app: the framework's floor). Each bundle is what
// `wrangler deploy --dry-run --outdir` uploads (minified, as deployed), and each sample is a fresh
// Node process (a fresh V8 isolate, as workerd's) timing `import()` of it: reading, compiling and
// running its top level (cold-start-eval.mjs). workerd's own clock does not advance while code runs
// and `wrangler check startup` samples wall-clock ticks (a loaded machine's preemption reads as
// startup), so process CPU time in Node, whose V8 is workerd's, is the steadier figure.
// Then where the worker's start-up goes: one evaluation under V8's profiler, its samples in the
// bundle mapped back through the source map to the package or source folder that ran them.
// COLD_START_SAMPLES (default 5) sets the fresh processes per bundle; the median is printed.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root, wranglerBin, wranglerEnv } from "../scripts/lib.mjs";
import { percentile, report } from "./lib.ts";

const SAMPLES = Number(process.env.COLD_START_SAMPLES ?? 5);
const GOAL_MS = 100;
const evaluator = join(root, "bench", "cold-start-eval.mjs");

/** `wrangler deploy --dry-run` of `config` into a new folder (marked as ES modules for Node): its entry. */
function bundle(config: string, cwd: string): string {
  const out = mkdtempSync(join(tmpdir(), "ecf-cold-start-"));
  const r = spawnSync(wranglerBin, ["deploy", "--dry-run", "--outdir", out, "-c", config], {
    cwd,
    env: wranglerEnv,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run -c ${config} failed:\n${r.stdout}\n${r.stderr}`);
  writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
  const entry = readdirSync(out).find((f) => f.endsWith(".js"));
  if (!entry) throw new Error(`wrangler deploy --dry-run -c ${config} wrote no .js module`);
  return join(out, entry);
}

/** One cold evaluation of `entry` in a fresh process: its CPU and wall ms. */
function evaluateOnce(entry: string, nodeArgs: string[] = []): { cpuMs: number; wallMs: number } {
  const line = execFileSync(process.execPath, [...nodeArgs, evaluator, entry], { encoding: "utf8" }).trim();
  return JSON.parse(line.split("\n").at(-1)!) as { cpuMs: number; wallMs: number };
}

/** SAMPLES cold evaluations of each entry, interleaved so the machine's moods fall on all alike. */
function measure(entries: Record<string, string>): Record<string, { cpu: number[]; wall: number[] }> {
  const runs = Object.fromEntries(
    Object.keys(entries).map((name) => [name, { cpu: [] as number[], wall: [] as number[] }]),
  );
  for (let i = 0; i < SAMPLES; i++)
    for (const [name, entry] of Object.entries(entries)) {
      const { cpuMs, wallMs } = evaluateOnce(entry);
      runs[name]!.cpu.push(cpuMs);
      runs[name]!.wall.push(wallMs);
    }
  return runs;
}

/** "node_modules/zod/v4/core/schemas.js" → "zod"; "../../worker/src/http/x.ts" → "worker/src/http". */
function ownerOf(source: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
  if (pkg) return pkg[1]!;
  const inRepo = source.indexOf(`${root.replace(/^\//, "")}/`);
  const parts = (inRepo >= 0 ? source.slice(inRepo + root.length) : source.replace(/^(\.\.\/)+/, "")).split("/");
  return parts.slice(0, Math.min(3, parts.length - 1)).join("/") || source;
}

interface Profile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * One profiled evaluation of `entry`: milliseconds of samples by what the thread did (V8 compiling the
 * bundle, running it, collecting garbage, Node's loader), and those running the bundle by the
 * package or source folder of the innermost frame (through the source map).
 */
function startUpProfile(entry: string): { byPhase: Map<string, number>; byOwner: Map<string, number> } {
  const dir = mkdtempSync(join(tmpdir(), "ecf-cold-start-profile-"));
  try {
    evaluateOnce(entry, ["--cpu-prof", "--cpu-prof-dir", dir]);
    const map = new SourceMap(JSON.parse(readFileSync(`${entry}.map`, "utf8")));
    const byOwner = new Map<string, number>();
    const byPhase = new Map<string, number>();
    const add = (m: Map<string, number>, key: string, ms: number) => m.set(key, (m.get(key) ?? 0) + ms);
    const url = `file://${entry}`;
    // Node writes one profile per thread; the loader hooks' thread is Node's, not the bundle's.
    for (const file of readdirSync(dir)) {
      const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as Profile;
      const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
      const parents = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((c) => [c, n.id] as const)));
      profile.samples.forEach((id, i) => {
        const ms = (profile.timeDeltas[i] ?? 0) / 1000;
        const frames: Profile["nodes"][number]["callFrame"][] = [];
        for (let at: number | undefined = id; at !== undefined; at = parents.get(at))
          frames.push(nodes.get(at)!.callFrame);
        const leaf = frames[0]?.functionName;
        if (leaf === "(idle)") return;
        const inBundle = frames.find((f) => f.url === url);
        if (inBundle) {
          add(byPhase, "running the bundle", ms);
          const found = map.findEntry(inBundle.lineNumber, inBundle.columnNumber) as { originalSource?: string };
          add(byOwner, found.originalSource ? ownerOf(found.originalSource) : "(top level, unmapped)", ms);
        } else if (leaf === "(garbage collector)") add(byPhase, "garbage collection", ms);
        else if (frames.some((f) => f.functionName === "compileSourceTextModule")) add(byPhase, "compiling", ms);
        // The rest is Node's own start and its loader thread, which the empty module pays too.
      });
    }
    return { byPhase, byOwner };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const folders: string[] = [];
try {
  const worker = bundle("wrangler.toml", root);
  folders.push(join(worker, ".."));
  // Hono alone, bundled by the same wrangler with the same settings (its folder under
  // node_modules/.cache so that "hono" resolves to this repository's copy).
  const honoDir = join(root, "node_modules", ".cache", "ecf-cold-start");
  mkdirSync(honoDir, { recursive: true });
  writeFileSync(
    join(honoDir, "hono-alone.ts"),
    'import { Hono } from "hono";\nconst app = new Hono();\napp.get("/health", (c) => c.json({ ok: true }));\n' +
      "export default { fetch: app.fetch };\n",
  );
  writeFileSync(
    join(honoDir, "wrangler.toml"),
    'name = "hono-alone"\nmain = "hono-alone.ts"\ncompatibility_date = "2026-05-01"\nminify = true\n',
  );
  const hono = bundle(join(honoDir, "wrangler.toml"), honoDir);
  folders.push(join(hono, ".."));
  const empty = join(join(hono, ".."), "empty.js");
  writeFileSync(empty, "export default {};\n");

  const runs = measure({ worker, hono, empty });
  const median = (name: string, what: "cpu" | "wall") => percentile(runs[name]![what], 50);
  report(`worker start-up: evaluate the bundle, cold isolate (CPU; goal ≤ ${GOAL_MS})`, median("worker", "cpu"), "ms");
  report("worker start-up: evaluate the bundle, wall time", median("worker", "wall"), "ms");
  report("reference: Hono alone (one route), cold isolate (CPU)", median("hono", "cpu"), "ms");
  report("reference: an empty module, cold isolate (CPU; the method's own cost)", median("empty", "cpu"), "ms");
  report("worker start-up beyond the empty module's", median("worker", "cpu") - median("empty", "cpu"), "ms");
  report("worker start-up / Hono alone", median("worker", "cpu") / median("hono", "cpu"), "x");
  const bytes = readFileSync(worker).length;
  report("worker bundle JavaScript (minified)", bytes / 1024, "KiB");

  const { byPhase, byOwner } = startUpProfile(worker);
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  console.log(
    "  where the worker's start-up goes (one profiled evaluation, ms sampled, wall-clock ticks): " +
      sorted(byPhase)
        .map(([phase, ms]) => `${phase} ${ms.toFixed(0)}`)
        .join(", "),
  );
  console.log(
    "  running the bundle, by the package or folder of the innermost frame: " +
      sorted(byOwner)
        .slice(0, 12)
        .map(([owner, ms]) => `${owner} ${ms.toFixed(0)}`)
        .join(", "),
  );
} finally {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
