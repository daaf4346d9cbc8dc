// The largest issuer's monthly files (month-scale.bench.ts loads its month): the 606 of
// MONTHLY_BENCH_PURCHASES purchases (default 50,000) and the 607 of MONTHLY_BENCH_SALES lines
// (default 300,000), JSON and TXT, and the month archive of MONTHLY_BENCH_ARCHIVE receipts (default
// 100,000), each streamed by a private wrangler dev whose month objects are loaded through the
// bench-only seeding route (BENCH_BULK=1, routes/bench.ts); a size of 0 leaves its part out.
// Printed: each response's time to the first byte, its whole time and MB/s, beside JSON.stringify
// of the same report in Node; the worker's peak JS heap during each response (goal ≤ 32 MB): the
// used heap of every isolate wrangler dev's inspector lists (Runtime.getHeapUsage; the month
// objects run in the worker's isolate), sampled back to back all through the response, after a
// forced garbage collection (HeapProfiler) for the baseline. The probe is checked first by a
// control (GET /admin/bench/heap-hold) that holds MONTHLY_BENCH_CONTROL_MB (default 40) MiB of
// strings while its response is read: the probe must read at least that much growth, or its figures
// are not printed as trustworthy. The live heap: each response is read again, held after its first
// chunk and at each quarter, where a collection is forced (HeapProfiler.collectGarbage) before the
// used heap is read; the control is read live too. MONTHLY_BENCH_SNAPSHOTS=dir writes a heap
// snapshot of each isolate at the half of each response (read them with bench/heap-retainers.ts);
// MONTHLY_BENCH_LOG=file keeps wrangler dev's output, MONTHLY_BENCH_DEBUG=1 prints each wake-up
// request's time.
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalStack } from "../scripts/local-stack.ts";
import { report } from "./lib.ts";

const PURCHASES = Number(process.env.MONTHLY_BENCH_PURCHASES ?? 50_000);
const SALES = Number(process.env.MONTHLY_BENCH_SALES ?? 300_000);
const ARCHIVE = Number(process.env.MONTHLY_BENCH_ARCHIVE ?? 100_000);
const CONTROL_MB = Number(process.env.MONTHLY_BENCH_CONTROL_MB ?? 40);
const SNAPSHOTS = process.env.MONTHLY_BENCH_SNAPSHOTS;
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
 * The workerd process that runs this bench's worker (the one with an inspector, below this process):
 * its resident memory is read from /proc, which needs nothing of the isolate, even while it is busy.
 */
function workerdRss(): number {
  const parentOf = (pid: string) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]!;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!command.includes("workerd") || !command.includes("--inspector-addr")) continue;
      let up = pid;
      for (let depth = 0; depth < 6 && up !== "1" && up !== String(process.pid); depth++) up = parentOf(up);
      if (up !== String(process.pid)) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (rss) return Number(rss[1]) * 1024;
    } catch {
      // a process that ended while read
    }
  }
  return Number.NaN;
}

/**
 * The JS heap of wrangler dev's isolates through the inspector: every target it lists (the user
 * worker, and any other isolate: which one serves a request is not stable across restarts), summed.
 */
async function heapProbe(port: number, wake: () => Promise<unknown>) {
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
  /** A heap snapshot's text as the inspector sends it, in chunks, per target. */
  const snapshotChunks = sockets.map((): string[] => []);
  sockets.forEach((socket, i) =>
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number;
        method?: string;
        params?: { chunk?: string };
        result?: Record<string, number>;
      };
      if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
      else if (message.method === "HeapProfiler.addHeapSnapshotChunk") snapshotChunks[i]!.push(message.params!.chunk!);
    }),
  );
  const send = (socket: Socket, method: string, params?: Record<string, unknown>) =>
    new Promise<Record<string, number>>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, ...(params ? { params } : {}) }));
    });
  /** The used heap of each target, in the order /json lists them. */
  const usedPerTarget = async () =>
    (await Promise.all(sockets.map((socket) => send(socket, "Runtime.getHeapUsage")))).map(
      (usage) => usage.usedSize ?? Number.NaN,
    );
  const usedNow = async () => (await usedPerTarget()).reduce((a, b) => a + b, 0);
  /**
   * Runs an inspector command on every target to its answer. workerd runs a requested collection
   * (or snapshot) only when the isolate wakes for an event (inspector reads alone do not wake it,
   * and each one leaves garbage): a /health request wakes it, until every target has answered.
   */
  const onEveryTarget = async (method: string, params?: Record<string, unknown>) => {
    let answered = false;
    void Promise.all(sockets.map((socket) => send(socket, method, params))).then(() => {
      answered = true;
    });
    const deadline = performance.now() + 120_000;
    while (!answered && performance.now() < deadline) await wake();
    if (!answered) throw new Error(`heap probe: ${method} did not answer`);
  };
  let samples = 0;
  const sampled: (() => void)[] = [];
  return {
    /** What is live on the heap now: the used heap right after a forced collection. */
    async live() {
      await onEveryTarget("HeapProfiler.collectGarbage");
      return usedNow();
    },
    /** A heap snapshot of each target (after the collection V8 makes for it), as its JSON text. */
    async snapshot(): Promise<string[]> {
      for (const chunks of snapshotChunks) chunks.length = 0;
      await onEveryTarget("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      return snapshotChunks.map((chunks) => chunks.join(""));
    },
    targets: targets.length,
    /** Resolves once `n` more samples have been taken (the control holds its memory until then). */
    samplesAfter: (n: number) =>
      new Promise<void>((resolve) => {
        const until = samples + n;
        const check = () => (samples >= until ? resolve() : sampled.push(check));
        check();
      }),
    /**
     * Runs `work` while sampling back to back (each sample waits for the isolate's answer);
     * the baseline after a forced collection, the highest sample, and how many were taken.
     */
    async peakDuring<T>(work: () => Promise<T>) {
      // The baseline is read after a forced collection.
      await onEveryTarget("HeapProfiler.collectGarbage");
      const base = await usedPerTarget();
      const before = base.reduce((a, b) => a + b, 0);
      const peaks = [...base];
      let low = before;
      let running = true;
      const start = samples;
      const sampler = (async () => {
        while (running) {
          // (An inspector read waits while the isolate serves a response: few are answered during one.)
          const now = await usedPerTarget();
          low = Math.min(
            low,
            now.reduce((a, b) => a + b, 0),
          );
          now.forEach((used, i) => {
            peaks[i] = Math.max(peaks[i]!, used);
          });
          samples++;
          for (const check of sampled.splice(0)) check();
        }
      })();
      // The worker process's resident memory, read every 20 ms from /proc all through the response.
      const rssBefore = workerdRss();
      let rssPeak = rssBefore;
      const rssTimer = setInterval(() => {
        rssPeak = Math.max(rssPeak, workerdRss());
      }, 20);
      try {
        const result = await work();
        clearInterval(rssTimer);
        const peak = peaks.reduce((a, b) => a + b, 0);
        return { result, before, low, peak, peaks, samples: samples - start, rssBefore, rssPeak };
      } finally {
        clearInterval(rssTimer);
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
const stack = await startLocalStack({
  frozen: true,
  vars: { BENCH_BULK: "1" },
  ...(process.env.MONTHLY_BENCH_LOG ? { logFile: process.env.MONTHLY_BENCH_LOG } : {}),
});
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

  // Each response is measured in a fresh isolate (wrangler dev restarted on the same state), so the
  // heap it starts from holds no garbage of the seeding or of the response before it.
  let heap: Awaited<ReturnType<typeof heapProbe>> | undefined;
  const freshHeap = async () => {
    heap?.close();
    await stack.restartWorker();
    heap = await heapProbe(stack.inspectorPort, async () => {
      const start = performance.now();
      const answer = await fetch(`${stack.workerUrl}/health`, { signal: AbortSignal.timeout(10_000) }).then(
        (r) => r.text(),
        (error: Error) => `no answer (${error.name})`,
      );
      if (process.env.MONTHLY_BENCH_DEBUG) console.log(`wake: ${(performance.now() - start).toFixed(0)} ms ${answer}`);
    });
    return heap;
  };
  // node:http rather than fetch: no 300 s wait for the headers, and a response can be held (paused)
  // while the heap is sampled. `hold` runs after the first chunk, before the rest is read.
  const get = (
    path: string,
    options: {
      sink?: (chunk: Uint8Array) => void;
      /** Runs with the bytes received so far (the chunk that triggered it included). */
      hold?: (received: number) => Promise<void>;
      holdEvery?: number;
    } = {},
  ) =>
    new Promise<{ ms: number; firstByteMs: number; bytes: number; text: string }>((resolve, reject) => {
      const start = performance.now();
      let firstByteMs = Number.NaN;
      const headers = { Authorization: `Bearer ${path.startsWith("/admin/") ? stack.adminSecret : token}` };
      const request = httpGet(`${stack.workerUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          if (!bytes) firstByteMs = performance.now() - start;
          // Held after the first chunk, then after each `holdEvery` bytes: the response waits (its
          // stream blocked on the client, its state in memory) while the isolate answers reads.
          const every = options.holdEvery ?? Number.POSITIVE_INFINITY;
          if (options.hold && (!bytes || Math.floor((bytes + chunk.length) / every) > Math.floor(bytes / every))) {
            res.pause();
            void options.hold(bytes + chunk.length).then(() => res.resume(), reject);
          }
          bytes += chunk.length;
          if (options.sink) options.sink(chunk);
          else chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          const text = options.sink ? "" : Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode} ${text.slice(0, 2000)}`));
          else resolve({ ms: performance.now() - start, firstByteMs, bytes, text });
        });
      });
      request.on("error", reject);
    });

  // The control: a response that holds CONTROL_MB MiB of strings until 5 samples were taken.
  const probe = await freshHeap();
  const control = await probe.peakDuring(() =>
    get(`/admin/bench/heap-hold?mb=${CONTROL_MB}`, { sink: () => {}, hold: () => probe.samplesAfter(5) }),
  );
  // The same control read live: after a forced collection while the response is held (after its first chunk).
  const liveProbe = await freshHeap();
  const liveBase = await liveProbe.live();
  let liveHeld = Number.NaN;
  await get(`/admin/bench/heap-hold?mb=${CONTROL_MB}`, {
    sink: () => {},
    hold: async () => {
      liveHeld = await liveProbe.live();
    },
  });
  const controlLive = (liveHeld - liveBase) / MB;
  const controlGrowth = (control.peak - control.before) / MB;
  const trusted = controlGrowth >= CONTROL_MB;
  report(`heap probe: inspector targets`, probe.targets, "");
  report(`heap probe control: ${CONTROL_MB} MiB held, growth read`, controlGrowth, "MB");
  console.log(`heap probe control: per-target peaks: ${control.peaks.map((p) => (p / MB).toFixed(1)).join(" / ")} MB`);
  report(`heap probe control: samples during it`, control.samples, "");
  report(`heap probe control: heap before it (after a forced GC)`, control.before / MB, "MB");
  report(`heap probe control: lowest sample during it`, control.low / MB, "MB");
  report(`heap probe: trustworthy (control read ≥ ${CONTROL_MB} MB)`, trusted ? 1 : 0, "(1 = yes)");
  report(`heap probe control: ${CONTROL_MB} MiB held, live heap growth read (after a forced GC)`, controlLive, "MB");
  report(`heap probe control: live heap while held`, liveHeld / MB, "MB");
  const liveTrusted = controlLive >= CONTROL_MB;
  report(`live heap probe: trustworthy (control read ≥ ${CONTROL_MB} MB live)`, liveTrusted ? 1 : 0, "(1 = yes)");
  const rssGrowth = (control.rssPeak - control.rssBefore) / MB;
  report(`process probe control: ${CONTROL_MB} MiB held, worker process RSS growth read`, rssGrowth, "MB");
  report(`process probe: trustworthy (control read ≥ ${CONTROL_MB} MB)`, rssGrowth >= CONTROL_MB ? 1 : 0, "(1 = yes)");
  const heapLabel = trusted ? "worker peak JS heap (goal ≤ 32 MB)" : "worker peak JS heap (PROBE FAILED ITS CONTROL)";

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
  if (ARCHIVE > 0) await seed("2025-04", "sales", ARCHIVE, 3000);
  report("monthly files: seeding (bench route)", (performance.now() - seedStart) / 1000, "s");

  // The inspector answers hardly any read while the isolate streams (0–1 in a whole response), so the
  // response is held every MiB received until 2 reads were answered: the heap is read at those
  // points, mid-stream, with the response's state alive (its timing is then printed separately).
  const measured = async (path: string) => {
    const probe = await freshHeap();
    const run = await probe.peakDuring(() => get(path, { hold: () => probe.samplesAfter(2), holdEvery: MB }));
    return { ...run, ...run.result };
  };
  // The live heap: the same response read again, held after its first chunk and at each quarter of
  // its size (known from the run before) while a collection is forced and the used heap read. With
  // MONTHLY_BENCH_SNAPSHOTS=dir, a heap snapshot of each target is written there at the half.
  const measuredLive = async (path: string, size: number, name: string) => {
    const probe = await freshHeap();
    const before = await probe.live();
    const readings: { at: number; live: number }[] = [];
    let snapshotted = false;
    await get(path, {
      sink: () => {},
      holdEvery: Math.ceil(size / 4),
      hold: async (received) => {
        readings.push({ at: received / size, live: await probe.live() });
        if (!SNAPSHOTS || snapshotted || received < size / 2) return;
        snapshotted = true;
        (await probe.snapshot()).forEach((text, i) => {
          writeFileSync(join(SNAPSHOTS, `${name.replace(/\W+/g, "-")}-${i}.heapsnapshot`), text);
        });
      },
    });
    return { before, readings, peak: Math.max(...readings.map((r) => r.live)) };
  };
  const printLive = (name: string, used: number, live: Awaited<ReturnType<typeof measuredLive>>) => {
    const at = live.readings.map((r) => `${(r.live / MB).toFixed(1)} at ${(r.at * 100).toFixed(0)} %`);
    console.log(`${name}: live heap readings (after a forced GC): ${at.join(", ")}`);
    report(`${name}: live heap before (after a forced GC)`, live.before / MB, "MB");
    report(
      `${name}: live heap at peak ${liveTrusted ? "" : "(PROBE FAILED ITS CONTROL) "}(goal ≤ 32 MB; used-heap peak ` +
        `${(used / MB).toFixed(1)} MB; control ${controlLive.toFixed(1)} MB live of ${CONTROL_MB} held)`,
      live.peak / MB,
      "MB",
    );
  };
  const print = (name: string, run: Awaited<ReturnType<typeof measured>>) => {
    report(`${name}: time to first byte`, run.firstByteMs / 1000, "s");
    report(`${name}: time`, run.ms / 1000, "s");
    report(`${name}: size`, run.bytes / MB, "MB");
    report(`${name}: throughput`, run.bytes / MB / (run.ms / 1000), "MB/s");
    report(`${name}: ${heapLabel}`, run.peak / MB, "MB");
    report(`${name}: worker heap before (after a forced GC)`, run.before / MB, "MB");
    report(`${name}: worker process RSS before`, run.rssBefore / MB, "MB");
    report(`${name}: worker process RSS growth during the response`, (run.rssPeak - run.rssBefore) / MB, "MB");
    report(
      `${name}: heap before + RSS growth (bound on the peak JS heap, goal ≤ 32 MB)`,
      (run.before + run.rssPeak - run.rssBefore) / MB,
      "MB",
    );
    report(`${name}: worker heap growth during the response`, (run.peak - run.before) / MB, "MB");
    report(`${name}: heap samples during the response (lowest ${(run.low / MB).toFixed(1)} MB)`, run.samples, "");
  };
  for (const [formato, records] of [
    ["606", PURCHASES],
    ["607", SALES],
  ] as const) {
    if (records === 0) continue;
    const json = await measured(`/reports/${formato}?period=202503`);
    const parsed = JSON.parse(json.text) as { recordCount: number; complete: boolean };
    if (!parsed.complete) throw new Error(`the ${formato} is not complete`);
    const start = performance.now();
    JSON.stringify(parsed);
    const referenceMs = performance.now() - start;
    const txt = await measured(`/reports/${formato}?period=202503&format=txt`);
    const name = `${formato} of ${parsed.recordCount} records (${records} rows seeded)`;
    const jsonLive = await measuredLive(`/reports/${formato}?period=202503`, json.bytes, `${formato}-json`);
    const txtLive = await measuredLive(`/reports/${formato}?period=202503&format=txt`, txt.bytes, `${formato}-txt`);
    print(`${name} JSON`, json);
    report(`${name} JSON: reference, JSON.stringify of the same report in Node`, referenceMs / 1000, "s");
    printLive(`${name} JSON`, json.peak, jsonLive);
    print(`${name} TXT`, txt);
    printLive(`${name} TXT`, txt.peak, txtLive);
  }

  if (ARCHIVE > 0) {
    const file = join(dir, "archive.zip");
    const out = createWriteStream(file);
    const zip = await (await freshHeap()).peakDuring(() =>
      get("/archive/2025-04", { sink: (chunk) => out.write(chunk) }),
    );
    await new Promise((resolve) => out.end(resolve));
    report(`archive of ${ARCHIVE} receipts: size`, zip.result.bytes / MB, "MB");
    report(`archive of ${ARCHIVE} receipts: throughput`, zip.result.bytes / MB / (zip.result.ms / 1000), "MB/s");
    report(`archive of ${ARCHIVE} receipts: worker peak JS heap`, zip.peak / MB, "MB");
    report(
      `archive of ${ARCHIVE} receipts: worker heap growth during the response`,
      (zip.peak - zip.before) / MB,
      "MB",
    );
    const tested = execFileSync("unzip", ["-tq", file], { encoding: "utf8", maxBuffer: 64 * MB });
    report(`archive of ${ARCHIVE} receipts: unzip -t passes`, /No errors detected/.test(tested) ? 1 : 0, "(1 = yes)");
  }
  heap?.close();
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
