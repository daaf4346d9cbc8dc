// The worker's upload as Cloudflare receives it from `npm run deploy` (scripts/build-worker.mjs: the
// entry and each lazily imported part as a module of its own): every module's size gzipped where it
// is large, and the whole raw and gzipped (goal: at most 700 KiB gzipped in all), beside the
// JavaScript alone.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildWorker } from "../scripts/build-worker.mjs";
import { report } from "./lib.ts";

const out = mkdtempSync(join(tmpdir(), "ecf-bundle-"));
try {
  const built = await buildWorker({ outdir: out });
  /** A module's name for the report: its largest inputs' packages (a chunk's file name is only a hash). */
  const contents = (file: string) => {
    const output = Object.entries(built.outputs).find(([path]) => path.endsWith(`/${file}`))?.[1];
    const bytes = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split("/").slice(0, 2).join("/");
      bytes.set(pkg, (bytes.get(pkg) ?? 0) + bytesInOutput);
    }
    const largest = [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 3);
    return largest.map(([pkg]) => pkg).join(", ");
  };
  let raw = 0;
  let gzipped = 0;
  let jsGzipped = 0;
  // Source maps are not uploaded as modules.
  for (const file of readdirSync(out).filter((f) => !f.endsWith(".map"))) {
    const bytes = readFileSync(join(out, file));
    const gz = gzipSync(bytes).length;
    raw += bytes.length;
    gzipped += gz;
    if (file.endsWith(".js")) jsGzipped += gz;
    if (gz > 50 * 1024) report(`bundle module ${file} (${contents(file)}) gzipped`, gz / 1024, "KiB");
  }
  report("bundle raw", raw / 1024, "KiB");
  report("bundle gzipped (goal ≤ 700)", gzipped / 1024, "KiB");
  report("bundle JavaScript alone gzipped", jsGzipped / 1024, "KiB");
} finally {
  rmSync(out, { recursive: true, force: true });
}
