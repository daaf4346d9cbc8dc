// The worker's upload as Cloudflare would receive it (`wrangler deploy --dry-run --outdir`): every
// module's size gzipped where it is large, and the whole raw and gzipped (goal: at most 700 KiB
// gzipped in all), beside the JavaScript alone.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { root, wranglerBin, wranglerEnv } from "../scripts/lib.mjs";
import { report } from "./lib.ts";

const out = mkdtempSync(join(tmpdir(), "ecf-bundle-"));
try {
  const r = spawnSync(wranglerBin, ["deploy", "--dry-run", "--outdir", out, "-c", "wrangler.toml"], {
    cwd: root,
    env: wranglerEnv,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${r.stdout}\n${r.stderr}`);
  let raw = 0;
  let gzipped = 0;
  let jsGzipped = 0;
  // Source maps and the README wrangler writes are not uploaded as modules.
  for (const file of readdirSync(out).filter((f) => !f.endsWith(".map") && f !== "README.md")) {
    const bytes = readFileSync(join(out, file));
    const gz = gzipSync(bytes).length;
    raw += bytes.length;
    gzipped += gz;
    if (file.endsWith(".js")) jsGzipped += gz;
    if (gz > 50 * 1024) report(`bundle module ${file.replace(/^[0-9a-f]{40}-/, "")} gzipped`, gz / 1024, "KiB");
  }
  report("bundle raw", raw / 1024, "KiB");
  report("bundle gzipped (goal ≤ 700)", gzipped / 1024, "KiB");
  report("bundle JavaScript alone gzipped", jsGzipped / 1024, "KiB");
} finally {
  rmSync(out, { recursive: true, force: true });
}
