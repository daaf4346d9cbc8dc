// The contingency goal (issuing keeps up while DGII is down), measured beside its reference in the
// same run: the throughput of issuing with DGII down (50 clients over 10 issuers) relative to GET
// /health's at the same concurrency, for this tree and for the code the goal was set against
// (ffd975e, the D1 ledger; CONTINGENCY_BENCH_REFERENCE names another revision, or "off"). Both run
// the same measurement (contingency-ratio.ts) on their own local stack, one after the other,
// alternating for CONTINGENCY_BENCH_ROUNDS rounds (default 2), since one run on this shared 2-core
// machine moves by up to a third. Prints each round, the median ratio of each and how many times
// the reference's ratio this tree reaches (the goal: 6), then where each spent its CPU, per receipt
// and per /health. The reference revision is installed once (reference-tree.ts), which takes about
// a minute.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { root } from "../scripts/lib.mjs";
import type { RatioMeasurement } from "./contingency-ratio.ts";
import { report } from "./lib.ts";
import { referenceTree } from "./reference-tree.ts";

const REFERENCE = process.env.CONTINGENCY_BENCH_REFERENCE ?? "ffd975e";
const ROUNDS = Number(process.env.CONTINGENCY_BENCH_ROUNDS ?? 2);

function measure(tree: string): RatioMeasurement {
  const run = spawnSync(process.execPath, ["--import", "tsx", join(root, "bench", "contingency-ratio.ts"), tree], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  if (run.status !== 0 || !line.startsWith("{"))
    throw new Error(`the contingency measurement of ${tree} failed (exit ${run.status}):\n${run.stdout.slice(-4000)}`);
  return JSON.parse(line) as RatioMeasurement;
}

const trees: [string, string][] = [["this tree", root]];
if (REFERENCE !== "off") trees.unshift([REFERENCE, referenceTree(REFERENCE)]);
const results = new Map<string, RatioMeasurement[]>(trees.map(([name]) => [name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, tree] of trees) {
    const m = measure(tree);
    results.get(name)!.push(m);
    console.log(
      `round ${round}, ${name}: ${m.receiptsPerSecond.toFixed(1)} receipts/s, ${m.healthPerSecond.toFixed(0)} GET /health per s, ratio ${m.ratio.toFixed(3)}${m.resends ? ` (${m.resends} lost answers resent)` : ""}`,
    );
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return Number.isInteger(middle) ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[Math.floor(middle)]!;
};
const medianRatio = (name: string) => median(results.get(name)!.map((m) => m.ratio));
for (const [name] of trees) {
  report(
    `issue E31 DGII down throughput / GET /health throughput, ${name} (median of ${ROUNDS})`,
    medianRatio(name),
    "ratio",
  );
}
if (REFERENCE !== "off")
  report(
    `contingency ratio, this tree / ${REFERENCE} (goal: 6)`,
    medianRatio("this tree") / medianRatio(REFERENCE),
    "×",
  );
for (const [name] of trees) {
  const runs = results.get(name)!;
  const roles = Object.keys(runs[0]!.cpuPerReceipt);
  const mean = (pick: (m: RatioMeasurement) => Record<string, number>, role: string) =>
    runs.reduce((sum, m) => sum + (pick(m)[role] ?? 0), 0) / runs.length;
  const total = (pick: (m: RatioMeasurement) => Record<string, number>) =>
    roles.reduce((sum, role) => sum + mean(pick, role), 0);
  console.log(
    `CPU, ${name}: ${total((m) => m.cpuPerReceipt).toFixed(1)} ms per contingency receipt, ${total((m) => m.cpuPerHealth).toFixed(1)} ms per GET /health, every process of the run`,
  );
  for (const role of roles)
    console.log(
      `  ${role}: ${mean((m) => m.cpuPerReceipt, role).toFixed(2)} ms per receipt, ${mean((m) => m.cpuPerHealth, role).toFixed(2)} ms per /health`,
    );
}
