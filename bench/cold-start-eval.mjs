// One cold start of a worker upload, for cold-start.bench.ts, which runs this file in a fresh Node
// process per sample (a fresh V8 isolate: nothing compiled or cached from before):
//   node --experimental-vm-modules bench/cold-start-eval.mjs <entry module> <all | imported>
// prints one JSON line: the CPU (user + system, every thread of the process: V8's compiler and GC
// helpers too) and the wall time of starting the worker as workerd does: the upload's modules (every
// .js and .sql file beside the entry, as `wrangler deploy --dry-run --outdir` writes them) are given
// in memory, compiled, and the entry's static import graph linked and evaluated.
// "all" compiles every module of the upload first, as workerd's default module registry does when
// an isolate starts (workerd-api.c++ compileModules: each bundle module through
// v8::ScriptCompiler::CompileModule), whether anything imports it or not; "imported" compiles a
// module only when the graph being linked reaches it, as the new module registry does (compatibility
// flag new_module_registry: modules-new.h, "never imported, never compiled").
// The modules are V8 modules built by node:vm (the same CompileModule, then link and evaluate), so
// Node's own loader (files, hooks, its worker thread) is not measured. The runtime's modules are
// stubbed (cloudflare:workers, cloudflare:sockets: a class and a function, nothing evaluated), and
// the .sql files are text modules, as wrangler's Text rule uploads them.
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import vm from "node:vm";

const STUBS = {
  "cloudflare:workers":
    "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }" +
    " export class WorkerEntrypoint {} export const env = {};",
  "cloudflare:sockets": "export function connect() { throw new Error('stub'); }",
};

const [entryFile, mode = "all"] = process.argv.slice(2);
if (!entryFile || !["all", "imported"].includes(mode))
  throw new Error("usage: node --experimental-vm-modules bench/cold-start-eval.mjs <entry module> <all | imported>");

// The upload, read before the clock starts (workerd has it in memory from its configuration).
const dir = dirname(entryFile);
const sources = new Map(
  readdirSync(dir)
    .filter((f) => f.endsWith(".js") || f.endsWith(".sql"))
    .map((f) => [f, readFileSync(join(dir, f), "utf8")]),
);

const compiled = new Map();
/** The module named `name` (a file of the upload or a runtime module), compiled on first request. */
function moduleNamed(name) {
  let module = compiled.get(name);
  if (module) return module;
  if (name in STUBS) module = new vm.SourceTextModule(STUBS[name], { identifier: name });
  else if (name.endsWith(".sql")) {
    const text = sources.get(name);
    module = new vm.SyntheticModule(["default"], function () {
      this.setExport("default", text);
    });
  } else {
    const source = sources.get(name);
    if (source === undefined) throw new Error(`the upload has no module ${name}`);
    module = new vm.SourceTextModule(source, {
      identifier: `file://${join(dir, name)}`,
      importModuleDynamically: (specifier, referrer) => loaded(resolve(specifier, referrer)),
    });
  }
  compiled.set(name, module);
  return module;
}

/** A specifier as the upload names its modules: relative to the importing module's folder. */
function resolve(specifier, referrer) {
  if (specifier in STUBS) return specifier;
  const from = referrer.identifier.startsWith("file://") ? basename(referrer.identifier) : ".";
  return posix.normalize(posix.join(posix.dirname(from), specifier));
}

async function loaded(name) {
  const module = moduleNamed(name);
  if (module.status === "unlinked")
    await module.link((specifier, referrer) => moduleNamed(resolve(specifier, referrer)));
  if (module.status === "linked") await module.evaluate();
  return module;
}

const cpuBefore = process.cpuUsage();
const started = performance.now();
if (mode === "all") for (const name of sources.keys()) moduleNamed(name);
await loaded(basename(entryFile));
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
// What was compiled: how many modules, and their JavaScript's size (the .sql texts are not compiled).
const bytes = [...compiled.keys()].filter((n) => n.endsWith(".js")).reduce((sum, n) => sum + sources.get(n).length, 0);
console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs, modules: compiled.size, bytes }));
