// What a V8 heap snapshot (.heapsnapshot, e.g. from monthly-files.bench.ts with
// MONTHLY_BENCH_SNAPSHOTS=dir) holds: the self size summed by kind and constructor, largest first,
// and for the largest single objects the chain of what retains them (first strong retainer each
// step), to find what keeps a streamed response's memory alive.
// Usage: node --import tsx bench/heap-retainers.ts file.heapsnapshot [top=25]
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error("usage: node bench/heap-retainers.ts file.heapsnapshot [top]");
const top = Number(topArg ?? 25);
const heap = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
const { meta } = heap.snapshot;
const nodeWidth = meta.node_fields.length;
const edgeWidth = meta.edge_fields.length;
const [typeAt, nameAt, sizeAt, edgeCountAt] = ["type", "name", "self_size", "edge_count"].map((f) =>
  meta.node_fields.indexOf(f),
) as [number, number, number, number];
const [edgeTypeAt, edgeNameAt, toAt] = ["type", "name_or_index", "to_node"].map((f) => meta.edge_fields.indexOf(f)) as [
  number,
  number,
  number,
];
const nodeCount = heap.nodes.length / nodeWidth;
const typeOf = (n: number) => meta.node_types[0][heap.nodes[n * nodeWidth + typeAt]!]!;
const nameOf = (n: number) => heap.strings[heap.nodes[n * nodeWidth + nameAt]!]!;
const sizeOf = (n: number) => heap.nodes[n * nodeWidth + sizeAt]!;

// Each node's first strong retainer (weak edges and the synthetic roots' shortcuts skipped).
const retainer = new Int32Array(nodeCount).fill(-1);
const retainerEdge = new Array<string>(nodeCount);
let edge = 0;
for (let n = 0; n < nodeCount; n++) {
  const count = heap.nodes[n * nodeWidth + edgeCountAt]!;
  for (let e = 0; e < count; e++, edge += edgeWidth) {
    const kind = meta.edge_types[0][heap.edges[edge + edgeTypeAt]!]!;
    if (kind === "weak" || kind === "shortcut") continue;
    const to = heap.edges[edge + toAt]! / nodeWidth;
    if (retainer[to] !== -1) continue;
    retainer[to] = n;
    const name = heap.edges[edge + edgeNameAt]!;
    retainerEdge[to] = kind === "element" || kind === "hidden" ? `[${name}]` : String(heap.strings[name]);
  }
}

const label = (n: number) => `${typeOf(n)} ${nameOf(n).slice(0, 60).replace(/\s+/g, " ")}`;
const byKind = new Map<string, { size: number; count: number }>();
let total = 0;
for (let n = 0; n < nodeCount; n++) {
  const kind = typeOf(n) === "object" || typeOf(n) === "closure" ? label(n) : typeOf(n);
  const entry = byKind.get(kind) ?? { size: 0, count: 0 };
  entry.size += sizeOf(n);
  entry.count++;
  byKind.set(kind, entry);
  total += sizeOf(n);
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
console.log(`${file}: ${nodeCount} nodes, ${mb(total)} MiB self size in all`);
for (const [kind, { size, count }] of [...byKind].sort((a, b) => b[1].size - a[1].size).slice(0, top))
  console.log(`${mb(size).padStart(8)} MiB ${String(count).padStart(8)}×  ${kind}`);

console.log("\nlargest objects and what retains them:");
const largest = [...Array(nodeCount).keys()].sort((a, b) => sizeOf(b) - sizeOf(a)).slice(0, Math.min(top, 12));
for (const n of largest) {
  const chain: string[] = [];
  for (let at = n, depth = 0; retainer[at] !== -1 && depth < 10; at = retainer[at]!, depth++)
    chain.push(`${retainerEdge[at]} ← ${label(retainer[at]!)}`);
  console.log(`${mb(sizeOf(n))} MiB ${label(n)}\n    ${chain.join("\n    ")}`);
}
