// The worker's start-up: the CPU time to start it in a cold isolate (goal ≤ 100 ms), beside two
// references measured the same way in the same run: an empty module (what the method itself costs)
// and Hono alone (a one-route app: the framework's floor). Each upload is what `wrangler deploy
// --dry-run --outdir` writes (minified, as deployed): the worker as `npm run deploy` uploads it (built by
// scripts/build-worker.mjs: an entry and its lazily imported parts as modules of their own, *.chunk.js),
// and, for comparison, the same source bundled by wrangler into one script (`wrangler deploy` of
// wrangler.toml's main, how it was deployed before that build).
// Each sample is a fresh Node process (a fresh V8 isolate, as workerd's) starting the upload as
// workerd does (cold-start-eval.mjs): with workerd's default module registry every module of the
// upload is compiled when the isolate starts, and the entry's static graph evaluated; with its new
// module registry (compatibility flag new_module_registry) only the modules that graph reaches are
// compiled. workerd's own clock does not advance while code runs and `wrangler check startup`
// samples wall-clock ticks (a loaded machine's preemption reads as startup), so process CPU time in
// Node, whose V8 is workerd's, is the steadier figure.
// Then where the worker's start-up goes: one evaluation under V8's profiler, its samples in the
// upload mapped back through the source maps to the package or source folder that ran them.
// COLD_START_SAMPLES (default 5) sets the fresh processes per upload; the median is printed.
// COLD_START_BEFORE=<entry .js of an earlier `wrangler deploy --dry-run --outdir`> adds that upload.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { buildWorker, workerDist } from "../scripts/build-worker.mjs";
import { root, wranglerBin, wranglerEnv } from "../scripts/lib.mjs";
import { percentile, report } from "./lib.ts";

const SAMPLES = Number(process.env.COLD_START_SAMPLES ?? 5);
const GOAL_MS = 100;
const evaluator = join(root, "bench", "cold-start-eval.mjs");

/** `wrangler deploy --dry-run` of `config` (of `entry` as it is, if given) into a new folder: its entry. */
function bundle(config: string, cwd: string, entry?: string): string {
  const out = mkdtempSync(join(tmpdir(), "ecf-cold-start-"));
  const args = [
    "deploy",
    "--dry-run",
    "--outdir",
    out,
    "-c",
    config,
    ...(entry ? ["--no-bundle", "--no-minify", entry] : []),
  ];
  const r = spawnSync(wranglerBin, args, { cwd, env: wranglerEnv, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
  const main = readdirSync(out).find((f) => f.endsWith(".js") && !f.endsWith(".chunk.js"));
  if (!main) throw new Error(`wrangler deploy --dry-run -c ${config} wrote no .js module`);
  return join(out, main);
}

/** Which modules a start compiles: every module of the upload (workerd's default) or those imported. */
type Registry = "all" | "imported";
interface Sample {
  cpuMs: number;
  wallMs: number;
  modules: number;
  bytes: number;
}

/** One cold start of the upload whose entry is `entry`, in a fresh process. */
function evaluateOnce(entry: string, registry: Registry, nodeArgs: string[] = []): Sample {
  const line = execFileSync(
    process.execPath,
    ["--experimental-vm-modules", "--no-warnings", ...nodeArgs, evaluator, entry, registry],
    { encoding: "utf8" },
  ).trim();
  return JSON.parse(line.split("\n").at(-1)!) as Sample;
}

/** SAMPLES cold starts of each case, interleaved so the machine's moods fall on all alike. */
function measure(cases: Record<string, [string, Registry]>): Record<string, Sample[]> {
  const runs = Object.fromEntries(Object.keys(cases).map((name) => [name, [] as Sample[]]));
  for (let i = 0; i < SAMPLES; i++)
    for (const [name, [entry, registry]] of Object.entries(cases)) runs[name]!.push(evaluateOnce(entry, registry));
  return runs;
}

/** ".../node_modules/zod/v4/core/schemas.js" → "zod"; "<root>/worker/src/http/x.ts" → "worker/src/http". */
function ownerOf(file: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  // A package whose own source map names its files from its src/ (drizzle-orm's do) loses its name.
  if (pkg) return pkg[1] === "src" ? "a package, by its own source map (drizzle-orm)" : pkg[1]!;
  const parts = relative(root, file).split("/");
  return parts.slice(0, Math.min(3, parts.length - 1)).join("/") || file;
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
 * One profiled start of the upload whose entry is `entry`: milliseconds of samples by what the thread
 * did (V8 compiling modules, running them, collecting garbage), and those running the upload by the
 * package or source folder of the innermost frame (through each module's source map).
 */
function startUpProfile(entry: string, registry: Registry) {
  const dir = mkdtempSync(join(tmpdir(), "ecf-cold-start-profile-"));
  try {
    evaluateOnce(entry, registry, ["--cpu-prof", "--cpu-prof-dir", dir]);
    const maps = new Map<string, { map: SourceMap; base: string } | undefined>();
    const mapOf = (url: string) => {
      if (!maps.has(url)) {
        const file = `${url.replace(/^file:\/\//, "")}.map`;
        const payload = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
        maps.set(url, payload && { map: new SourceMap(payload), base: payload.sourceRoot || dirname(file) });
      }
      return maps.get(url);
    };
    /** The source file a frame of the upload ran, absolute. */
    const sourceOf = (url: string, line: number, column: number) => {
      const mapped = mapOf(url);
      const found = mapped?.map.findEntry(line, column) as { originalSource?: string } | undefined;
      return found?.originalSource && resolve(mapped!.base, found.originalSource.replace(/^file:\/\//, ""));
    };
    const byOwner = new Map<string, number>();
    const byPhase = new Map<string, number>();
    const add = (m: Map<string, number>, key: string, ms: number) => m.set(key, (m.get(key) ?? 0) + ms);
    const upload = `file://${dirname(entry)}/`;
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
        const inUpload = frames.find((f) => f.url.startsWith(upload));
        if (inUpload) {
          add(byPhase, "running the upload", ms);
          const source = sourceOf(inUpload.url, inUpload.lineNumber, inUpload.columnNumber);
          add(byOwner, source ? ownerOf(source) : "(unmapped)", ms);
        } else if (leaf === "(garbage collector)") add(byPhase, "garbage collection", ms);
        else if (frames.some((f) => f.functionName === "SourceTextModule")) add(byPhase, "compiling", ms);
        // The rest is Node's own start, which the empty module pays too.
      });
    }
    return { byPhase, byOwner };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The upload's modules' source maps beside them (with --no-bundle wrangler writes none; the build has each). */
function withBuildMaps(entry: string): void {
  const dist = workerDist;
  for (const f of readdirSync(dist).filter((f) => f.endsWith(".js.map"))) {
    if (!existsSync(join(dirname(entry), f.replace(/\.map$/, "")))) continue;
    const map = JSON.parse(readFileSync(join(dist, f), "utf8"));
    writeFileSync(join(dirname(entry), f), JSON.stringify({ ...map, sourceRoot: dist }));
  }
}

const folders: string[] = [];
try {
  // As `npm run deploy` uploads it: the build (worker/dist), then wrangler given its entry.
  await buildWorker();
  const worker = bundle("wrangler.toml", root, "worker/dist/index.js");
  folders.push(dirname(worker));
  withBuildMaps(worker);
  // The same source as one script: wrangler bundling wrangler.toml's main itself (dynamic imports inlined).
  const oneScript = bundle("wrangler.toml", root);
  folders.push(dirname(oneScript));
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
  folders.push(dirname(hono));
  const emptyDir = mkdtempSync(join(tmpdir(), "ecf-cold-start-empty-"));
  folders.push(emptyDir);
  const empty = join(emptyDir, "empty.js");
  writeFileSync(empty, "export default {};\n");

  const before = process.env.COLD_START_BEFORE;
  const runs = measure({
    worker: [worker, "all"],
    workerLazy: [worker, "imported"],
    oneScript: [oneScript, "all"],
    ...(before ? { before: [before, "all"] as [string, Registry] } : {}),
    hono: [hono, "all"],
    empty: [empty, "all"],
  });
  const median = (name: string, what: "cpuMs" | "wallMs" = "cpuMs") =>
    percentile(
      runs[name]!.map((r) => r[what]),
      50,
    );
  const kib = (name: string) => runs[name]![0]!.bytes / 1024;
  const modules = (name: string) => runs[name]![0]!.modules;
  report(
    `worker start-up, cold isolate, workerd's default module registry (every module compiled; CPU; goal ≤ ${GOAL_MS})`,
    median("worker"),
    "ms",
  );
  report("worker start-up, same, wall time", median("worker", "wallMs"), "ms");
  report(
    `worker start-up, cold isolate, modules compiled when imported (new_module_registry; CPU; goal ≤ ${GOAL_MS})`,
    median("workerLazy"),
    "ms",
  );
  report(
    "reference: the same source as one script (wrangler's bundle of worker/src), cold (CPU)",
    median("oneScript"),
    "ms",
  );
  if (before) report(`reference: COLD_START_BEFORE (${before}), cold (CPU)`, median("before"), "ms");
  report("reference: Hono alone (one route), cold isolate (CPU)", median("hono"), "ms");
  report("reference: an empty module, cold isolate (CPU; the method's own cost)", median("empty"), "ms");
  report("worker start-up (default registry) / Hono alone", median("worker") / median("hono"), "x");
  report(`worker upload JavaScript, every module (${modules("worker")} modules)`, kib("worker"), "KiB");
  report(
    `worker start-up graph: the modules an isolate's start imports (${modules("workerLazy")})`,
    kib("workerLazy"),
    "KiB",
  );
  report("the same source as one script", kib("oneScript"), "KiB");

  for (const [label, registry] of [
    ["default registry", "all"],
    ["modules compiled when imported", "imported"],
  ] as const) {
    const { byPhase, byOwner } = startUpProfile(worker, registry);
    const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
    console.log(
      `  where the worker's start-up goes, ${label} (one profiled start, ms sampled, wall-clock ticks): ` +
        sorted(byPhase)
          .map(([phase, ms]) => `${phase} ${ms.toFixed(0)}`)
          .join(", "),
    );
    console.log(
      "    running the upload, by the package or folder of the innermost frame: " +
        sorted(byOwner)
          .slice(0, 12)
          .map(([owner, ms]) => `${owner} ${ms.toFixed(0)}`)
          .join(", "),
    );
  }
} finally {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
