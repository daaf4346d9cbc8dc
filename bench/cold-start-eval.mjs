// One cold evaluation of a bundled worker module, for cold-start.bench.ts, which runs this file in a
// fresh Node process per sample (a fresh V8 isolate: nothing compiled or cached from before):
// `node bench/cold-start-eval.mjs <module file>` prints one JSON line, the CPU (user + system, every
// thread of the process: V8's compiler and GC helpers too) and the wall time of `import()` of that
// module, which reads, compiles and runs its top level, as workerd does when an isolate starts.
// What a Worker module imports from the runtime is stubbed (cloudflare:workers, cloudflare:sockets:
// a class and a function, nothing evaluated), and its `.sql` text modules are read as text, as
// wrangler's Text rule uploads them.
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const hooks = `
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("cloudflare:")) return { url: "stub:" + specifier, shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url === "stub:cloudflare:workers")
    return {
      format: "module",
      shortCircuit: true,
      source: "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }" +
        " export class WorkerEntrypoint {} export const env = {};",
    };
  if (url === "stub:cloudflare:sockets")
    return { format: "module", shortCircuit: true, source: "export function connect() { throw new Error('stub'); }" };
  if (url.endsWith(".sql")) {
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(new URL(url), "utf8");
    return { format: "module", shortCircuit: true, source: "export default " + JSON.stringify(text) + ";" };
  }
  return next(url, context);
}`;

const file = process.argv[2];
if (!file) throw new Error("usage: node bench/cold-start-eval.mjs <module file>");
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
const cpuBefore = process.cpuUsage();
const started = performance.now();
await import(pathToFileURL(file).href);
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs }));
