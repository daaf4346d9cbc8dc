// The largest issuer the month objects are sized for: one supermarket chain's month, MONTH_BENCH_N
// receipts (default 3,000,000) and MONTH_BENCH_PURCHASES purchases (default 50,000), loaded into
// one month object of a private `wrangler dev --var BENCH_BULK:1` through the bench-only bulk path
// (worker/src/bench/ month-rows.ts: realistic rows, the month object's ordinary import). Prints the
// object's SQLite bytes per receipt and how many such months 10 GB holds, then /reports/encf's
// first, middle and last page and its buyer and type filters, p50 each, beside GET /health's p50 in
// the same run. Refuses to print figures unless the report counts every receipt and the pages are
// the ones asked.
import { encodeCursor } from "../worker/src/reports/paging.ts";
import { benchBuyerRnc, benchReceiptKey } from "../worker/src/bench/month-rows.ts";
import { startLocalStack } from "../scripts/local-stack.ts";
import { percentile, report } from "./lib.ts";

const N = Number(process.env.MONTH_BENCH_N ?? 3_000_000);
const PURCHASES = Number(process.env.MONTH_BENCH_PURCHASES ?? 50_000);
/** Rows per bulk request (one month-object transaction each). */
const CHUNK = 10_000;
const SAMPLES = Number(process.env.MONTH_BENCH_SAMPLES ?? 41);
const PAGE = 100;
const MONTH = "2026-10";
const RNC = "131880681";
/** What a month object may hold (Cloudflare's limit for a SQLite-backed Durable Object). */
const OBJECT_LIMIT_BYTES = 10 * 1024 ** 3;

const stack = await startLocalStack({
  frozen: true,
  vars: { BENCH_BULK: "1" },
  ...(process.env.MONTH_BENCH_LOG ? { logFile: process.env.MONTH_BENCH_LOG } : {}),
});

async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.workerUrl}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.adminSecret}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * One chunk; sent again when the local runtime restarted the worker mid-request (seen on this
 * loaded machine): the rows are the same each time and the import skips those already there.
 */
async function loadChunk(spec: Record<string, unknown>, attempt = 1): Promise<{ databaseSize: number }> {
  try {
    return (await admin("/admin/bench/month-rows", spec)) as { databaseSize: number };
  } catch (error) {
    if (attempt >= 5) throw error;
    process.stderr.write(`month-scale: chunk at ${spec.from} sent again (${(error as Error).message.slice(0, 120)})\n`);
    return loadChunk(spec, attempt + 1);
  }
}

/** Loads rows [0, total) of one kind in chunks; the object's SQLite size after the last. */
async function load(companyId: string, kind: "receipts" | "purchases", total: number): Promise<number> {
  let size = 0;
  for (let from = 0; from < total; from += CHUNK) {
    const count = Math.min(CHUNK, total - from);
    const spec = { companyId, rnc: RNC, month: MONTH, kind, from, count, total };
    size = (await loadChunk(spec)).databaseSize;
    if (kind === "receipts" && (from / CHUNK) % 25 === 0)
      process.stderr.write(`month-scale: ${from + count} of ${total} ${kind} loaded\n`);
  }
  return size;
}

/** The keys of one day's receipts in report order (the generator says which they are). */
function dayKeys(day: string): [string, string][] {
  const keys: [string, string][] = [];
  for (let i = 0; i < N; i++) {
    const key = benchReceiptKey({ month: MONTH, total: N }, i);
    if (key[0] === day) keys.push(key);
  }
  return keys.sort((a, b) => (a[1] < b[1] ? -1 : 1));
}

interface Page {
  items: { encf: string; tipoeCF: string; rncComprador: string | null }[];
  total: number;
  nextCursor: string | null;
}

try {
  const company = await admin("/admin/companies", {
    registryNumber: RNC,
    name: "Supermercados Bench SRL",
    dgiiServer: "testecf",
  });
  const companyId = company.id as string;
  const key = await admin("/admin/keys", { ownerType: "company", ownerId: companyId, kind: "test" });
  const login = await fetch(`${stack.workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiKey: key.apiKey, apiSecret: key.apiSecret }),
  });
  const { token } = (await login.json()) as { token: string };

  const empty = await load(companyId, "receipts", 0);
  const t0 = performance.now();
  const withReceipts = await load(companyId, "receipts", N);
  const receiptSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const full = await load(companyId, "purchases", PURCHASES);
  const purchaseSeconds = (performance.now() - t1) / 1000;

  const get = async (query: string): Promise<{ ms: number; page: Page }> => {
    const t = performance.now();
    const res = await fetch(`${stack.workerUrl}/reports/encf?${query}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const page = (await res.json()) as Page;
    const ms = performance.now() - t;
    if (!res.ok) throw new Error(`/reports/encf?${query} answered ${res.status}: ${JSON.stringify(page)}`);
    return { ms, page };
  };
  const cursorAt = (k: [string, string]) => encodeURIComponent(encodeCursor("encf", k));
  const days = new Date(Date.UTC(2026, 10, 0)).getUTCDate();
  const middleDay = dayKeys(`${MONTH}-${String(Math.ceil(days / 2)).padStart(2, "0")}`);
  const lastDay = dayKeys(`${MONTH}-${days}`);
  const frequentBuyer = benchBuyerRnc(0);
  const cases: [label: string, query: string, check: (p: Page) => boolean][] = [
    ["first page", `pageSize=${PAGE}`, (p) => p.total === N && p.items.length === PAGE],
    [
      "middle page",
      `pageSize=${PAGE}&cursor=${cursorAt(middleDay[Math.floor(middleDay.length / 2)]!)}`,
      (p) => p.items[0]?.encf === middleDay[Math.floor(middleDay.length / 2) + 1]![1],
    ],
    [
      "last page",
      `pageSize=${PAGE}&cursor=${cursorAt(lastDay[lastDay.length - PAGE - 1]!)}`,
      (p) => p.items.length === PAGE && p.nextCursor === null && p.items.at(-1)?.encf === lastDay.at(-1)![1],
    ],
    [
      `buyer RNC filter (the most frequent of ${5000} buyers)`,
      `pageSize=${PAGE}&rncComprador=${frequentBuyer}`,
      (p) => p.items.length > 0 && p.items.every((r) => r.rncComprador === frequentBuyer),
    ],
    [
      "type filter E31",
      `pageSize=${PAGE}&tipoeCF=31`,
      (p) => p.items.length === PAGE && p.items.every((r) => r.tipoeCF === "31"),
    ],
    [
      "type filter E47 (rarest)",
      `pageSize=${PAGE}&tipoeCF=47`,
      (p) => p.items.length > 0 && p.items.every((r) => r.tipoeCF === "47"),
    ],
  ];
  const times = new Map<string, number[]>(cases.map(([label]) => [label, []]));
  const health: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    for (const [label, query, check] of cases) {
      const { ms, page } = await get(query);
      if (!check(page)) throw new Error(`refusing to measure: ${label} answered ${JSON.stringify(page).slice(0, 500)}`);
      times.get(label)!.push(ms);
    }
    const t = performance.now();
    await (await fetch(`${stack.workerUrl}/health`)).arrayBuffer();
    health.push(performance.now() - t);
  }

  console.log(`month-scale: ${N} receipts and ${PURCHASES} purchases in one month object (${MONTH})`);
  report(`month-scale load ${N} receipts`, receiptSeconds, `s (${Math.round(N / receiptSeconds)} rows/s)`);
  report(`month-scale load ${PURCHASES} purchases`, purchaseSeconds, "s");
  report("month-scale bytes per receipt in the object's SQLite", (withReceipts - empty) / N, "B");
  report("month-scale bytes per purchase in the object's SQLite", (full - withReceipts) / Math.max(1, PURCHASES), "B");
  report("month-scale month object size", full / 1024 ** 3, "GiB (receipts and purchases)");
  // At the volume (3,000,000 receipts and 50,000 purchases a month), from this run's bytes per row.
  const perReceipt = (withReceipts - empty) / N;
  const perPurchase = PURCHASES > 0 ? (full - withReceipts) / PURCHASES : 0;
  const months = OBJECT_LIMIT_BYTES / (empty + 3_000_000 * perReceipt + 50_000 * perPurchase);
  if (N !== 3_000_000)
    report(`month-scale months of a ${N}-receipt month in 10 GiB`, OBJECT_LIMIT_BYTES / full, "months");
  report(
    "month-scale months of this issuer (3,000,000 receipts) in 10 GiB (goal >= 5)",
    months,
    months >= 5
      ? "months"
      : "months: BELOW GOAL. The design splits further by holding a month in several objects per issuer " +
          "(one per half-month or per 1,000,000 receipts: reports already merge every object's keyset slice), " +
          "and shrinks the row (most of it is the figures JSON's key names, the timbre URL, which its columns " +
          "rebuild, and two SHA-256 as hex text)",
  );
  const healthP50 = percentile(health, 50);
  for (const [label] of cases) {
    const p50 = percentile(times.get(label)!, 50);
    report(
      `month-scale /reports/encf ${label} p50 (goal <= 50 ms)`,
      p50,
      `ms (${(p50 / healthP50).toFixed(1)}× /health)`,
    );
  }
  report("GET /health p50 (reference)", healthP50, "ms");
} finally {
  await stack.stop();
}
