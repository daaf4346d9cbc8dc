// One issuer's ceiling: receipts per second through ONE IssuerLedger (and one month object), with
// DGII down so that nothing outside the worker bounds it (the contingency path: number, sign,
// archive, record), at 1, 10 and 50 clients of that one issuer, each beside GET /health at the same
// concurrency in the same run (the reference: what this stack answers when a request does nearly
// nothing). Through a private `wrangler dev` + DGII sandbox and @ecf/client, as the other issuing
// benches; every request carries its own Idempotency-Key. Where the time goes, from the worker's
// Server-Timing: the wait on the issuer object's numbering, the R2 archive and the month object's
// record, beside the client's latency (the rest is the worker's own CPU — validation, signing — and
// the queue on workerd's one thread); and the CPU per receipt of each process. Exactly-once is
// checked at the end: every receipt answered, each e-NCF once, the numbers 1..n with no gap.
// At 50 clients a second reference: the same 50 clients spread over 5 issuers (5 issuer objects):
// were one IssuerLedger the bound, the spread run would be faster. With 1 client, the numbering
// RPC's p50 gives one object's time per receipt and the ceiling it implies were calls serial.
// ISSUER_CEILING_N (default 400) sets the receipts per concurrency (1 client: a quarter of it).
// Then the IssuerLedger itself, without HTTP, auth, validation or signing: the bench-only route
// (POST /admin/bench/issuer-ceiling, worker/src/bench/issuer-ceiling.ts; this stack runs with
// BENCH_BULK=1) drives numbering, and numbering + record (the month object, DGII down), with 1, 10
// and 50 concurrent callers inside the worker against one fresh issuer's objects, beside a no-op
// RPC to the same object (the RPC's own ceiling) and beside the end-to-end figure above.
// ISSUER_LEDGER_N (default 2000) sets the operations per concurrency and mode; ISSUER_CEILING_E2E=0
// skips the end-to-end part.
import { answerOf, type components, createClient, type EcfClient, ProblemError } from "@ecf/client";
import { rncCheckDigit } from "@ecf/shared";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { setUpIssuer } from "../scripts/certify-lib/issuer.ts";
import { type LocalStack, startLocalStack } from "../scripts/local-stack.ts";
import { benchE31, cpuByRole, cpuPer, percentile, report, serverTiming } from "./lib.ts";

const N = Number(process.env.ISSUER_CEILING_N ?? 400);
const LEDGER_N = Number(process.env.ISSUER_LEDGER_N ?? 2000);
const E2E = process.env.ISSUER_CEILING_E2E !== "0";
const CONCURRENCIES = [1, 10, 50];
const HEALTH_N = 1000;
const WARM_UP_N = 20;
/** Issuers the reference at the highest concurrency spreads its clients over. */
const SPREAD_ISSUERS = 5;
/** The issue's goal for one issuer (receipts/s). */
const GOAL = 200;

type EcfRequest = components["schemas"]["EcfRequest"];

interface Answer {
  ms: number;
  encf: string;
  phases: Record<string, number>;
}

let numbered = 0;
let resends = 0;
/** The one issuer's e-NCFs as answered, and its clients (the spread reference's are not checked here). */
const encfs: string[] = [];
const oneIssuer = new Set<EcfClient>();

/** One E31 through `api`; anything but 503 Contingencia fails the bench (its time is not a receipt's). */
async function issueOne(api: EcfClient): Promise<Answer> {
  const started = performance.now();
  const i = numbered++;
  try {
    const sent = await api.POST("/fe/recepcion/ecf", {
      body: benchE31(i) as EcfRequest,
      signal: AbortSignal.timeout(60_000),
    });
    const answer = answerOf(sent);
    if (sent.response.status !== 503 || answer?.estado !== "Contingencia")
      throw new Error(`DGII down: expected 503 Contingencia, got ${sent.response.status} ${JSON.stringify(answer)}`);
    if (oneIssuer.has(api)) encfs.push(answer.encf);
    return {
      ms: performance.now() - started,
      encf: answer.encf,
      phases: serverTiming(sent.response.headers.get("Server-Timing")),
    };
  } catch (error) {
    if (error instanceof ProblemError) throw new Error(`HTTP ${error.status}: ${JSON.stringify(error.body)}`);
    throw error;
  }
}

/** `total` calls shared by `clients`, each one call at a time: the results and calls per second. */
async function spread<T>(clients: EcfClient[], total: number, call: (api: EcfClient) => Promise<T>) {
  const results: T[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (api) => {
      while (next++ < total) results.push(await call(api));
    }),
  );
  return { results, perSecond: (total * 1000) / (performance.now() - started) };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const cpuTotal = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** A new issuer (RNC 13188<three digits>) with `count` clients logged in with its key. */
async function issuerClients(stack: LocalStack, digits: number, count: number): Promise<EcfClient[]> {
  const base = `13188${String(digits).padStart(3, "0")}`;
  const rnc = `${base}${rncCheckDigit(base)}`;
  const legalName = `Supermercado Techo ${digits} SRL`;
  const identity = await createTestIdentity({ rnc, commonName: legalName });
  const setup = await setUpIssuer(
    stack.workerUrl,
    stack.adminSecret,
    { rnc, legalName, address: "Av. 27 de Febrero 1", dgiiEnvironment: "testecf" },
    { p12: forgeP12(identity, "bench1234"), password: "bench1234" },
    [{ tipo: "31", rangeFrom: 1, rangeTo: 1_000_000, expiresOn: "2028-12-31" }],
  );
  return Promise.all(
    Array.from({ length: count }, async () => {
      const api = createClient({
        baseUrl: stack.workerUrl,
        credentials: { apiKey: setup.apiKey, apiSecret: setup.apiSecret },
        networkRetries: 5,
        onRetry: () => resends++,
      });
      await api.session.bearer(); // logged in before anything is timed
      return api;
    }),
  );
}

/** The end-to-end receipts per second at each concurrency (issue E31, DGII down), for the ledger's rows. */
const endToEnd = new Map<number, number>();

interface LedgerRun {
  perSecond: number;
  /** CPU ms per operation of the workerd running the worker (its objects too), measured around the call. */
  workerCpuMs: number;
  elapsedMs: number;
  numbered: number;
  distinct: number;
  gapless: boolean;
}

/** One in-worker run of the bench-only route (a fresh issuer each); refuses a run that lost or repeated a number. */
async function ledgerRun(
  stack: LocalStack,
  mode: string,
  count: number,
  callers: number,
  attempt = 1,
): Promise<LedgerRun> {
  const cpuBefore = cpuByRole();
  const res = await fetch(`${stack.workerUrl}/admin/bench/issuer-ceiling`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.adminSecret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ mode, count, callers }),
    signal: AbortSignal.timeout(600_000),
  });
  const text = await res.text();
  // wrangler dev restarts the worker now and then (month-scale.bench.ts sees it too): that run is lost, run it again.
  if (res.status === 503 && /restarted mid-request/.test(text) && attempt < 5) {
    process.stderr.write(`issuer-ceiling: the worker restarted during ${mode} ${callers}; run again\n`);
    return ledgerRun(stack, mode, count, callers, attempt + 1);
  }
  if (!res.ok) throw new Error(`bench route ${mode}: HTTP ${res.status} ${text}`);
  const run = JSON.parse(text) as LedgerRun;
  run.workerCpuMs = cpuPer(cpuBefore, cpuByRole(), count).get("workerd running the worker") ?? Number.NaN;
  const expected = mode === "rpc" ? 0 : count;
  if (run.numbered !== expected || run.distinct !== expected || !run.gapless)
    throw new Error(`${mode} ${callers} callers: not every e-NCF once and in order: ${JSON.stringify(run)}`);
  return run;
}

/** The IssuerLedger's own ceiling at each concurrency, beside the no-op RPC and the end-to-end figure. */
async function ledgerCeiling(stack: LocalStack): Promise<void> {
  await ledgerRun(stack, "number+record", 50, 10); // warm: the route's modules, the objects' classes
  const rows: string[] = [];
  for (const c of CONCURRENCIES) {
    const count = c === 1 ? Math.ceil(LEDGER_N / 4) : LEDGER_N;
    const rpc = await ledgerRun(stack, "rpc", count, c);
    const number = await ledgerRun(stack, "number", count, c);
    const both = await ledgerRun(stack, "number+record", count, c);
    const label = `${c} caller${c === 1 ? "" : "s"}`;
    report(`IssuerLedger no-op RPC ${label} in the worker (N=${count}; the RPC's ceiling)`, rpc.perSecond, "calls/s");
    report(`IssuerLedger numbering ${label} in the worker (N=${count})`, number.perSecond, "receipts/s");
    report(
      `IssuerLedger numbering + month record ${label} in the worker (N=${count}, goal ≥ ${GOAL})`,
      both.perSecond,
      "receipts/s",
    );
    report(`IssuerLedger numbering + record ${label} / no-op RPC`, both.perSecond / rpc.perSecond, "ratio");
    console.log(
      `  workerd CPU per operation: no-op RPC ${rpc.workerCpuMs.toFixed(2)} ms, numbering ` +
        `${number.workerCpuMs.toFixed(2)} ms, numbering + record ${both.workerCpuMs.toFixed(2)} ms ` +
        `(its wall time per operation at this concurrency: ${(1000 / both.perSecond).toFixed(2)} ms)`,
    );
    const e2e = endToEnd.get(c);
    if (e2e) report(`issue E31 end to end ${label} / IssuerLedger numbering + record`, e2e / both.perSecond, "ratio");
    rows.push(
      `| ${c} | ${rpc.perSecond.toFixed(0)} | ${number.perSecond.toFixed(0)} | ${both.perSecond.toFixed(0)} | ` +
        `${e2e ? e2e.toFixed(1) : "-"} |`,
    );
  }
  console.log("| callers | no-op RPC per s | numbering per s | numbering + record per s | end to end per s |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(row);
}

/** Issuing end to end through one issuer at each concurrency, with its references (the part before the ledger's). */
async function endToEndCeiling(stack: LocalStack): Promise<void> {
  const clients = await issuerClients(stack, 400, Math.max(...CONCURRENCIES));
  for (const api of clients) oneIssuer.add(api);
  // The second reference: the same 50 clients spread over SPREAD_ISSUERS issuers (their own
  // issuer and month objects). If one IssuerLedger bounded the figure, these would go faster.
  const spreadClients = (
    await Promise.all(
      Array.from({ length: SPREAD_ISSUERS }, (_, i) =>
        issuerClients(stack, 401 + i, Math.max(...CONCURRENCIES) / SPREAD_ISSUERS),
      ),
    )
  ).flat();
  const down = await fetch(`${stack.sandboxUrl}/__sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ mode: "down", reset: true }),
  });
  if (!down.ok) throw new Error(`the sandbox refused the down fault: HTTP ${down.status}`);
  await spread(clients.slice(0, 5), WARM_UP_N, issueOne);
  await spread(spreadClients, WARM_UP_N, issueOne);

  const rows: string[] = [];
  for (const c of CONCURRENCIES) {
    const total = c === 1 ? Math.ceil(N / 4) : N;
    const some = clients.slice(0, c);
    const cpuBefore = cpuByRole();
    const receipts = await spread(some, total, issueOne);
    const cpuPerReceipt = cpuPer(cpuBefore, cpuByRole(), total);
    const cpuBeforeHealth = cpuByRole();
    const health = await spread(some, HEALTH_N, async (api) => {
      const { response } = await api.GET("/health");
      if (!response.ok) throw new Error(`GET /health: HTTP ${response.status}`);
    });
    const cpuPerHealth = cpuPer(cpuBeforeHealth, cpuByRole(), HEALTH_N);
    const spreadRun = c === spreadClients.length ? await spread(spreadClients, total, issueOne) : undefined;
    const phase = (name: string) => mean(receipts.results.map((r) => r.phases[name] ?? 0));
    const latency = mean(receipts.results.map((r) => r.ms));
    const label = `one issuer ${c} client${c === 1 ? "" : "s"}`;
    report(
      `issue E31 DGII down ${label} throughput (N=${total}; end to end through wrangler dev, beside /health: the goal is the IssuerLedger's, below)`,
      receipts.perSecond,
      "receipts/s",
    );
    report(`GET /health ${c} client${c === 1 ? "" : "s"} throughput (N=${HEALTH_N})`, health.perSecond, "requests/s");
    report(`issue E31 DGII down ${label} / GET /health`, receipts.perSecond / health.perSecond, "ratio");
    report(
      `issue E31 DGII down ${label} latency p50`,
      percentile(
        receipts.results.map((r) => r.ms),
        50,
      ),
      "ms",
    );
    report(
      `issue E31 DGII down ${label} latency p99`,
      percentile(
        receipts.results.map((r) => r.ms),
        99,
      ),
      "ms",
    );
    console.log(
      `  where a receipt's ${latency.toFixed(1)} ms went (means; worker Server-Timing): issuer object numbering ` +
        `${phase("number").toFixed(1)}, R2 archive ${phase("archive").toFixed(1)}, month object record ` +
        `${phase("record").toFixed(1)}, DGII status ${phase("transmit").toFixed(1)}; the rest ` +
        `${(latency - phase("storage") - phase("transmit")).toFixed(1)} is the worker's CPU (validate, sign) ` +
        "and the queue for workerd's thread and the local proxies",
    );
    console.log(
      `  CPU per receipt, every process: ${cpuTotal(cpuPerReceipt).toFixed(2)} ms (per /health ` +
        `${cpuTotal(cpuPerHealth).toFixed(2)} ms); ${[...cpuPerReceipt]
          .map(([role, ms]) => `${role} ${ms.toFixed(2)}`)
          .join(", ")}`,
    );
    if (spreadRun) {
      report(
        `issue E31 DGII down ${c} clients over ${SPREAD_ISSUERS} issuers throughput (N=${total}; reference)`,
        spreadRun.perSecond,
        "receipts/s",
      );
      report(
        `issue E31 DGII down one issuer ${c} clients / ${c} clients over ${SPREAD_ISSUERS} issuers`,
        receipts.perSecond / spreadRun.perSecond,
        "ratio",
      );
    }
    if (c === 1) {
      // One client: the numbering RPC's wait is the issuer object's own time per receipt (no queue of ours).
      const numbering = percentile(
        receipts.results.map((r) => r.phases.number ?? 0),
        50,
      );
      report("issuer object numbering RPC, 1 client, p50 (worker Server-Timing)", numbering, "ms");
      report(
        "one IssuerLedger's ceiling were its numbering calls serial (1000 / that p50)",
        1000 / numbering,
        "receipts/s",
      );
    }
    endToEnd.set(c, receipts.perSecond);
    rows.push(
      `| ${c} | ${receipts.perSecond.toFixed(1)} | ${health.perSecond.toFixed(0)} | ` +
        `${(receipts.perSecond / health.perSecond).toFixed(3)} | ${phase("number").toFixed(1)} | ` +
        `${cpuTotal(cpuPerReceipt).toFixed(1)} |`,
    );
  }
  console.log("| clients | receipts/s | /health per s | ratio | numbering wait ms | CPU ms per receipt |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(row);

  // Exactly once: every receipt answered with its own e-NCF, the sequence 1..n with no gap.
  const numbers = encfs.map((e) => Number(e.slice(3))).sort((a, b) => a - b);
  const gaps = numbers.filter((n, i) => n !== i + 1);
  if (new Set(encfs).size !== encfs.length || gaps.length)
    throw new Error(`e-NCFs not 1..${encfs.length} exactly once: first out of place ${gaps.slice(0, 5).join(", ")}`);
  report("one issuer receipts numbered, each e-NCF once, no gap", encfs.length, "receipts");
  report("requests resent after a lost answer (same Idempotency-Key)", resends, "resends");
}

const stack = await startLocalStack({ processingMs: 0, frozen: true, vars: { BENCH_BULK: "1" } });
try {
  if (E2E) await endToEndCeiling(stack);
  await ledgerCeiling(stack);
} finally {
  await stack.stop();
}
