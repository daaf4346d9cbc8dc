// `npm run cf-typegen` (wrangler types) must reproduce the committed worker-configuration.d.ts,
// also on a clean clone: the secrets' names come from the committed .dev.vars.example (passed as
// --env-file, so a developer's own .dev.vars is not read), so Env always declares them.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { wranglerEnv } from "../../scripts/lib.mjs";

const root = resolve(import.meta.dirname, "../..");
const COMMITTED = "worker/worker-configuration.d.ts";

it("npm run cf-typegen reproduces the committed worker/worker-configuration.d.ts", () => {
  const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts["cf-typegen"];
  const args = script.split(/\s+/);
  expect(args.slice(0, 2)).toEqual(["wrangler", "types"]);
  expect(args).toContain(COMMITTED);
  expect(script).toMatch(/--env-file \.dev\.vars\.example\b/);
  // Beside the committed file, so the generated import paths (relative to it) are the same.
  const temp = `worker/.typegen-${process.pid}.d.ts`;
  const env: NodeJS.ProcessEnv = { ...wranglerEnv };
  delete env.CLOUDFLARE_INCLUDE_PROCESS_ENV;
  try {
    execFileSync(
      join(root, "node_modules/.bin/wrangler"),
      args.slice(1).map((a) => (a === COMMITTED ? temp : a)),
      { cwd: root, env, stdio: "pipe" },
    );
    // The header names the command that wrote the file: the npm script's own path. wrangler writes
    // the command in its own spelling (options as `--name=value`, the path last), so compare that.
    const generated = readFileSync(join(root, temp), "utf8").replace(temp, COMMITTED);
    const committed = readFileSync(join(root, COMMITTED), "utf8");
    const spelled = `wrangler types --config=wrangler.toml --env-file=.dev.vars.example ${COMMITTED}`;
    expect(args.slice(2).sort()).toEqual(["-c", "wrangler.toml", "--env-file", ".dev.vars.example", COMMITTED].sort());
    expect(committed).toContain(`running \`${spelled}\``);
    for (const secret of ["JWT_SECRET", "ADMIN_SECRET", "MASTER_KEY"])
      expect(generated).toMatch(new RegExp(`\\b${secret}: string;`));
    // Line by line, so a failure shows the lines that differ rather than two 500 kB strings.
    const [g, c] = [generated.split("\n"), committed.split("\n")];
    const differing = g.flatMap((line, i) =>
      line === c[i] ? [] : [`${i + 1}: generated ${JSON.stringify(line)} / committed ${JSON.stringify(c[i])}`],
    );
    expect(differing.slice(0, 20)).toEqual([]);
    expect(g.length).toBe(c.length);
  } finally {
    rmSync(join(root, temp), { force: true });
  }
}, 120_000);
