// Issue 35's large issuer, part B: the 606 of MONTHLY_BENCH_PURCHASES purchases (default 50,000)
// and the 607 of MONTHLY_BENCH_SALES lines (default 300,000), JSON and TXT, and the month archive
// of MONTHLY_BENCH_ARCHIVE receipts (default 100,000), each streamed by a private wrangler dev
// whose month objects are loaded through the bench-only seeding route (BENCH_BULK=1,
// routes/bench.ts). Printed: the time of each response beside JSON.stringify of the same
// report in Node; the worker's peak JS heap during each response (the isolate's used heap,
// sampled every 10 ms through wrangler dev's inspector, Runtime.getHeapUsage, which covers the
// isolate's month objects too, as wrangler dev runs them in it; goal ≤ 32 MB);
// the archive's throughput in MB/s, its peak heap, and `unzip -t` on it.
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../scripts/local-stack.ts";
import { report } from "./lib.ts";

const PURCHASES = Number(process.env.MONTHLY_BENCH_PURCHASES ?? 50_000);
const SALES = Number(process.env.MONTHLY_BENCH_SALES ?? 300_000);
const ARCHIVE = Number(process.env.MONTHLY_BENCH_ARCHIVE ?? 100_000);
const SLICE = 5_000;
const MB = 1024 * 1024;

/** The little of `ws` used here (Node 20 has no WebSocket global; `ws` ships no types). */
interface Socket {
  once(event: "open" | "error", listener: (value?: unknown) => void): Socket;
  on(event: "message", listener: (data: unknown) => void): Socket;
  send(data: string): void;
  close(): void;
}
const { default: WebSocket } = (await import("ws" as string)) as { default: new (url: string) => Socket };

/**
 * The JS heap of wrangler dev's isolates through the inspector: every target it lists (the user
 * worker, and any other isolate: which one serves a request is not stable across restarts), summed.
 */
async function heapProbe(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const sockets = await Promise.all(
    targets.map(async (target) => {
      const socket = new WebSocket(target.webSocketDebuggerUrl);
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      return socket;
    }),
  );
  let id = 0;
  const pending = new Map<number, (result: Record<string, number>) => void>();
  for (const socket of sockets)
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: Record<string, number> };
      if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
    });
  const send = (socket: Socket, method: string) =>
    new Promise<Record<string, number>>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method }));
    });
  const used = async () => {
    const usages = await Promise.all(sockets.map((socket) => send(socket, "Runtime.getHeapUsage")));
    return usages.reduce((sum, usage) => sum + (usage.usedSize ?? Number.NaN), 0);
  };
  return {
    used,
    /** Runs `work` while sampling the used heap; the highest sample and the heap before. */
    async peakDuring<T>(work: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
      const before = await used();
      let peak = before;
      let running = true;
      const sampler = (async () => {
        while (running) {
          peak = Math.max(peak, await used());
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      try {
        return { result: await work(), before, peak };
      } finally {
        running = false;
        await sampler;
      }
    },
    close: () => {
      for (const socket of sockets) socket.close();
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), "ecf-monthly-bench-"));
const stack = await startLocalStack({ frozen: true, vars: { BENCH_BULK: "1" } });
try {
  // wrangler dev sometimes restarts the worker under a long run of large requests ("Your worker
  // restarted mid-request"): a seeding slice is sent again (its rows are imported once, by key).
  const admin = async (path: string, body: unknown): Promise<Record<string, string>> => {
    for (let attempt = 1; ; attempt++) {
      const r = await fetch(`${stack.workerUrl}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stack.adminSecret}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      if (r.ok) return r.json() as Promise<Record<string, string>>;
      const text = await r.text();
      if (r.status !== 503 || !/restarted mid-request/.test(text) || attempt >= 5)
        throw new Error(`${path}: ${r.status} ${text}`);
    }
  };
  const rnc = "131880681";
  const company = await admin("/admin/companies", {
    registryNumber: rnc,
    name: "Supermercado Bench SRL",
    dgiiServer: "testecf",
  });
  const key = await admin("/admin/keys", { ownerType: "company", ownerId: company.id, kind: "test" });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiKey: key.apiKey, apiSecret: key.apiSecret }),
  });
  const { token } = (await login.json()) as { token: string };

  const seedStart = performance.now();
  const seed = async (month: string, kind: "purchases" | "sales", total: number, xmlBytes?: number) => {
    for (let from = 0; from < total; from += SLICE)
      await admin(`/admin/bench/months/${company.id}/${month}`, {
        issuerRnc: rnc,
        [kind]: { from, count: Math.min(SLICE, total - from) },
        ...(xmlBytes ? { xmlBytes } : {}),
      });
  };
  await seed("2025-03", "purchases", PURCHASES);
  await seed("2025-03", "sales", SALES);
  await seed("2025-04", "sales", ARCHIVE, 3000);
  report("monthly files: seeding (bench route)", (performance.now() - seedStart) / 1000, "s");

  // Each response is measured in a fresh isolate (wrangler dev restarted on the same state), so the
  // heap it starts from holds no garbage of the seeding or of the response before it.
  let heap: Awaited<ReturnType<typeof heapProbe>> | undefined;
  const freshHeap = async () => {
    heap?.close();
    await stack.restartWorker();
    heap = await heapProbe(stack.inspectorPort);
    return heap;
  };
  // node:http rather than fetch: a 607 of 300,000 lines takes its first pass over the month before
  // the first byte, longer than fetch's 300 s wait for the headers.
  const get = (path: string, sink?: (chunk: Uint8Array) => void) =>
    new Promise<{ ms: number; bytes: number; text: string }>((resolve, reject) => {
      const start = performance.now();
      const request = httpGet(`${stack.workerUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (sink) sink(chunk);
          else chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode} ${text}`));
          else resolve({ ms: performance.now() - start, bytes, text: sink ? "" : text });
        });
      });
      request.on("error", reject);
    });

  for (const [formato, records] of [
    ["606", PURCHASES],
    ["607", SALES],
  ] as const) {
    const json = await (await freshHeap()).peakDuring(() => get(`/reports/${formato}?period=202503`));
    const parsed = JSON.parse(json.result.text) as { recordCount: number; complete: boolean };
    if (!parsed.complete) throw new Error(`the ${formato} is not complete`);
    const start = performance.now();
    JSON.stringify(parsed);
    const referenceMs = performance.now() - start;
    const txt = await (await freshHeap()).peakDuring(() => get(`/reports/${formato}?period=202503&format=txt`));
    const name = `${formato} of ${parsed.recordCount} records (${records} rows seeded)`;
    report(`${name} JSON: time`, json.result.ms / 1000, "s");
    report(`${name} JSON: reference, JSON.stringify of the same report in Node`, referenceMs / 1000, "s");
    report(`${name} JSON: size`, json.result.bytes / MB, "MB");
    report(`${name} JSON: worker peak JS heap (goal ≤ 32 MB)`, json.peak / MB, "MB");
    report(`${name} JSON: worker heap before`, json.before / MB, "MB");
    report(`${name} JSON: worker heap growth during the response`, (json.peak - json.before) / MB, "MB");
    report(`${name} TXT: time`, txt.result.ms / 1000, "s");
    report(`${name} TXT: worker peak JS heap (goal ≤ 32 MB)`, txt.peak / MB, "MB");
    report(`${name} TXT: worker heap growth during the response`, (txt.peak - txt.before) / MB, "MB");
  }

  const file = join(dir, "archive.zip");
  const out = createWriteStream(file);
  const zip = await (await freshHeap()).peakDuring(() => get("/archive/2025-04", (chunk) => out.write(chunk)));
  await new Promise((resolve) => out.end(resolve));
  report(`archive of ${ARCHIVE} receipts: size`, zip.result.bytes / MB, "MB");
  report(`archive of ${ARCHIVE} receipts: throughput`, zip.result.bytes / MB / (zip.result.ms / 1000), "MB/s");
  report(`archive of ${ARCHIVE} receipts: worker peak JS heap`, zip.peak / MB, "MB");
  report(`archive of ${ARCHIVE} receipts: worker heap growth during the response`, (zip.peak - zip.before) / MB, "MB");
  const tested = execFileSync("unzip", ["-tq", file], { encoding: "utf8", maxBuffer: 64 * MB });
  report(`archive of ${ARCHIVE} receipts: unzip -t passes`, /No errors detected/.test(tested) ? 1 : 0, "(1 = yes)");
  heap?.close();
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
