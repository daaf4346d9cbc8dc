// A past revision of this repository, installed beside it, so a bench can run that revision's own
// code in the same run as this tree's and print both figures (git archive of the revision, then
// its own `npm ci`). Kept under node_modules/.cache/ecf-reference/<commit> and reused by later runs:
// only the first run pays the install (about a minute on this 2-core machine).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../scripts/lib.mjs";

/** The directory holding `revision`, installed; throws when git does not know the revision (a shallow clone). */
export function referenceTree(revision: string): string {
  const commit = spawnSync("git", ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`], {
    cwd: root,
    encoding: "utf8",
  });
  if (commit.status !== 0)
    throw new Error(`git does not know ${revision} here (a shallow clone?): fetch the full history`);
  const sha = commit.stdout.trim();
  const dir = join(root, "node_modules", ".cache", "ecf-reference", sha);
  const ready = join(dir, ".installed");
  if (existsSync(ready)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`installing ${revision} (${sha.slice(0, 12)}) in ${dir} for the reference figures…`);
  const run = (command: string, args: string[]) => {
    const r = spawnSync(command, args, {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, CI: "true" },
    });
    if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${dir} (exit ${r.status})`);
  };
  run("sh", ["-c", `git -C '${root}' archive --format=tar ${sha} | tar -x -f -`]);
  run("npm", ["ci", "--no-audit", "--no-fund"]);
  writeFileSync(ready, `${sha}\n`);
  return dir;
}
