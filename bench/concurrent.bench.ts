// Issuing under concurrency, end to end: a private wrangler dev and DGII sandbox, 10 issuers, 50
// clients (5 per issuer, each logged in with its issuer's key) issuing E31 through
// POST /fe/recepcion/ecf, each request with its own Idempotency-Key. The sandbox judges while
// issuing continues: every request transmits its receipt and polls the result, and what is still
// En Proceso when a request gives up is finished by the worker's alarms. Prints throughput,
// latency p50/p99 and the storage round trips per receipt (the worker's Server-Timing rt-*) beside
// the same figures for 1 client over 1 issuer measured in the same run on the same stack (the
// Idempotency-Key adds no ledger RPC: it is checked and claimed with the number),
// then how long the worker took to bring every receipt to a final DGII state after the last
// answer, and that the sandbox received each e-NCF exactly once. A request whose answer was lost
// on the way (a dropped connection, or wrangler dev's proxy answering a plain-text 503 "Your worker
// restarted mid-request" when its connection to the worker drops under load) is sent again by
// @ecf/client with the same Idempotency-Key, as a real integration's would be: those resends are
// counted and printed. Exits non-zero on any other non-2xx answer, any receipt not Aceptado, a
// receipt not final within 2 minutes, or an e-NCF the sandbox received more than once. Last, with DGII down (the
// contingency path), the same 50 clients' throughput beside GET /health's at that concurrency.
// CONCURRENT_BENCH_N (default 600), CONCURRENT_BENCH_REFERENCE_N (30) and CONCURRENT_BENCH_DOWN_N
// (300) set the counts.
import { answerOf, type components, createClient, type EcfClient, ProblemError } from "@ecf/client";
import { rncCheckDigit } from "@ecf/shared";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { setUpIssuer } from "../scripts/certify-lib/issuer.ts";
import { startLocalStack } from "../scripts/local-stack.ts";
import { benchE31, cpuByRole, cpuPer, percentile, report, serverTiming } from "./lib.ts";

const ISSUERS = 10;
const CLIENTS_PER_ISSUER = 5;
const N = Number(process.env.CONCURRENT_BENCH_N ?? 600);
const REFERENCE_N = Number(process.env.CONCURRENT_BENCH_REFERENCE_N ?? 30);
const FINAL = new Set(["Aceptado", "Aceptado Condicional", "Rechazado", "Anulado"]);
const DRAIN_LIMIT_MS = 120_000;
/** Receipts issued with DGII down (contingency), and GET /health requests for its reference. */
const DOWN_N = Number(process.env.CONCURRENT_BENCH_DOWN_N ?? 300);
const HEALTH_N = 2000;
/** Resends of a lost answer per call: drops come in bursts on a loaded machine, so more than the client's default. */
const NETWORK_RETRIES = 5;
/** Resends of lost answers (same Idempotency-Key) so far, by the section of the run that made them. */
const resends = new Map<string, number>();
let section = "setup";

type EcfRequest = components["schemas"]["EcfRequest"];

const request = (i: number) => benchE31(i) as EcfRequest;

/** One integration: its issuer and its @ecf/client, logged in with the issuer's key. */
interface Client {
  rnc: string;
  api: EcfClient;
}

interface Sample {
  client: Client;
  ms: number;
  status: number;
  estado: string;
  encf: string;
  phases: Record<string, number>;
  problem?: unknown;
}

/** One issue request (the client adds its Idempotency-Key), timed from send to the whole answer read. */
async function issue(client: Client, i: number): Promise<Sample> {
  const started = performance.now();
  try {
    const sent = await client.api.POST("/fe/recepcion/ecf", { body: request(i), signal: AbortSignal.timeout(60_000) });
    const { error, response } = sent;
    const answer = answerOf(sent); // a Contingencia's 503 is an answer too
    const sample = {
      client,
      ms: performance.now() - started,
      status: response.status,
      estado: answer?.estado ?? "",
      encf: answer?.encf ?? "",
      phases: serverTiming(response.headers.get("Server-Timing")),
    };
    return response.ok ? sample : { ...sample, problem: error };
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return {
      client,
      ms: performance.now() - started,
      status: error.status,
      estado: "",
      encf: "",
      phases: {},
      problem: error.body,
    };
  }
}

/** `total` receipts shared by the clients, each client sending its next request when its last is answered. */
async function issueMany(clients: Client[], total: number) {
  const samples: Sample[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < total)
        samples.push(
          await issue(client, next++).catch((error: Error) => ({
            client,
            ms: 0,
            status: 0,
            estado: "",
            encf: "",
            phases: {},
            problem: error.message,
          })),
        );
    }),
  );
  return { samples, wallMs: performance.now() - started };
}

/** `total` GET /health shared by `clients`, each through its own @ecf/client: requests per second. */
async function healthPerSecond(clients: Client[], total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async ({ api }) => {
      while (next++ < total) {
        const { response } = await api.GET("/health");
        if (!response.ok) throw new Error(`GET /health: HTTP ${response.status}`);
      }
    }),
  );
  return (total * 1000) / (performance.now() - started);
}

/** Throughput, latency and mean round trips per receipt of one run. */
function figures(run: { samples: Sample[]; wallMs: number }) {
  const ms = run.samples.map((s) => s.ms);
  const mean = (name: string) => run.samples.reduce((sum, s) => sum + (s.phases[name] ?? 0), 0) / run.samples.length;
  const trips = { d1: mean("rt-d1"), ledger: mean("rt-ledger"), r2: mean("rt-r2") };
  return {
    throughput: (run.samples.length * 1000) / run.wallMs,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    trips,
    totalTrips: trips.d1 + trips.ledger + trips.r2,
  };
}

/** "Aceptado 590, En Proceso 10" */
function outcomes(samples: Sample[]): string {
  const counts = new Map<string, number>();
  for (const s of samples) {
    const key = s.status >= 200 && s.status < 300 ? s.estado : `HTTP ${s.status || "error"}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k} ${v}`).join(", ");
}

/** "resends after a lost answer: warm-up 0, concurrent 3, …" */
function resendsLine(): string {
  return `resends after a lost answer (same Idempotency-Key): ${[...resends].map(([k, v]) => `${k} ${v}`).join(", ") || "none"}`;
}

/** Fails loudly on any non-2xx answer or transport error: its time is not an issue's. */
function requireAllAnswered(label: string, samples: Sample[]): void {
  const failed = samples.filter((s) => s.status < 200 || s.status >= 300);
  if (failed.length)
    throw new Error(
      `${label}: ${failed.length} of ${samples.length} requests failed (${outcomes(samples)}); first: ${JSON.stringify(failed[0]!.problem)}`,
    );
}

// Same settings as issue.bench.ts: the sandbox judges at once (its XSD check still takes a few
// hundred ms), a request polls after 100, 300 and 1000 ms. Frozen: another developer's edits to
// worker/ must not reload the worker mid-run.
const stack = await startLocalStack({ processingMs: 0, pollDelaysMs: "100,300,1000", frozen: true });
try {
  // Issuer 0 serves the reference; issuers 1..10 the concurrent run. Valid RNCs: 13188 + 3 digits + check digit.
  const rncs = Array.from({ length: ISSUERS + 1 }, (_, i) => {
    const first8 = `13188${String(200 + i).padStart(3, "0")}`;
    return `${first8}${rncCheckDigit(first8)}`;
  });
  const clientsOf = await Promise.all(
    rncs.map(async (rnc, i) => {
      const legalName = `Bench Concurrente ${i} SRL`;
      const identity = await createTestIdentity({ rnc, commonName: legalName });
      const setup = await setUpIssuer(
        stack.workerUrl,
        stack.adminSecret,
        { rnc, legalName, address: "Av. Winston Churchill 1099", dgiiEnvironment: "testecf" },
        { p12: forgeP12(identity, "bench1234"), password: "bench1234" },
        [{ tipo: "31", rangeFrom: 1, rangeTo: N + REFERENCE_N + 100, expiresOn: "2028-12-31" }],
        { url: stack.sandboxUrl, certificatePem: identity.certificatePem },
      );
      const clients: Client[] = [];
      for (let c = 0; c < (i === 0 ? 1 : CLIENTS_PER_ISSUER); c++) {
        const api = createClient({
          baseUrl: stack.workerUrl,
          credentials: { apiKey: setup.apiKey, apiSecret: setup.apiSecret },
          networkRetries: NETWORK_RETRIES,
          onRetry: () => resends.set(section, (resends.get(section) ?? 0) + 1),
        });
        await api.session.bearer(); // logged in before anything is timed
        clients.push({ rnc, api });
      }
      return clients;
    }),
  );
  const referenceClients = clientsOf[0]!;
  const concurrentClients = clientsOf.slice(1).flat();

  // Warm-up, two per issuer: the first requests compile and cache (isolate, signing key, DGII token).
  section = "warm-up";
  const warmUp = await Promise.all(clientsOf.map((clients) => issueMany(clients.slice(0, 1), 2)));
  requireAllAnswered(
    "warm-up",
    warmUp.flatMap((w) => w.samples),
  );

  section = "1 client over 1 issuer";
  const reference = await issueMany(referenceClients, REFERENCE_N);
  requireAllAnswered("1 client over 1 issuer", reference.samples);
  section = "concurrent";
  const concurrent = await issueMany(concurrentClients, N);
  const issuingEnded = performance.now();
  console.log(
    `concurrent E31 answers: ${outcomes(concurrent.samples)} (of ${N}); reference: ${outcomes(reference.samples)} (of ${REFERENCE_N}); ${resendsLine()}`,
  );
  requireAllAnswered(`${concurrentClients.length} clients over ${ISSUERS} issuers`, concurrent.samples);

  // Every receipt of the run (warm-ups included) to a final DGII state: poll the ones answered En Proceso.
  const all = [...warmUp.flatMap((w) => w.samples), ...reference.samples, ...concurrent.samples];
  section = "drain";
  let pending = all.filter((s) => !FINAL.has(s.estado));
  const answeredPending = pending.length;
  while (pending.length) {
    if (performance.now() - issuingEnded > DRAIN_LIMIT_MS)
      throw new Error(
        `${pending.length} receipts not final ${DRAIN_LIMIT_MS / 1000} s after issuing: ${pending
          .slice(0, 5)
          .map((s) => `${s.client.rnc} ${s.encf} ${s.estado}`)
          .join("; ")}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
    for (const s of pending) {
      s.estado =
        answerOf(await s.client.api.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf: s.encf } } }))?.estado ??
        s.estado;
    }
    pending = pending.filter((s) => !FINAL.has(s.estado));
  }
  const drainMs = performance.now() - issuingEnded;
  const notAccepted = all.filter((s) => s.estado !== "Aceptado");
  if (notAccepted.length) throw new Error(`not every receipt was Aceptado: ${outcomes(notAccepted)}`);

  // The sandbox took each e-NCF once (with a track id), and nothing the run did not issue.
  const received = (await (await fetch(`${stack.sandboxUrl}/__sandbox/received?kind=ecf`)).json()) as {
    rnc: string | null;
    encf: string | null;
    trackId: string | null;
  }[];
  const copies = new Map<string, number>();
  for (const r of received)
    if (r.trackId !== null)
      copies.set(`${r.rnc} ${r.encf?.toUpperCase()}`, (copies.get(`${r.rnc} ${r.encf?.toUpperCase()}`) ?? 0) + 1);
  const issued = new Set(all.map((s) => `${s.client.rnc} ${s.encf}`));
  const twice = [...copies].filter(([, n]) => n !== 1);
  const missing = [...issued].filter((key) => !copies.has(key));
  const extra = [...copies.keys()].filter((key) => !issued.has(key));
  if (issued.size !== all.length || twice.length || missing.length || extra.length) {
    throw new Error(
      `sandbox receptions do not match: ${all.length} issued (${issued.size} distinct), received twice ${JSON.stringify(twice.slice(0, 5))}, missing ${JSON.stringify(missing.slice(0, 5))}, not issued ${JSON.stringify(extra.slice(0, 5))}`,
    );
  }
  const concurrentReceived = concurrent.samples.filter((s) => copies.get(`${s.client.rnc} ${s.encf}`) === 1).length;

  const one = figures(reference);
  const many = figures(concurrent);
  const label = `${concurrentClients.length} clients over ${ISSUERS} issuers`;
  report(`issue E31 1 client over 1 issuer throughput (N=${REFERENCE_N})`, one.throughput, "receipts/s");
  report(`issue E31 ${label} throughput (N=${N})`, many.throughput, "receipts/s");
  report(`issue E31 ${label} vs 1 client over 1 issuer throughput`, many.throughput / one.throughput, "x");
  report("issue E31 1 client over 1 issuer latency p50", one.p50, "ms");
  report("issue E31 1 client over 1 issuer latency p99", one.p99, "ms");
  report(`issue E31 ${label} latency p50`, many.p50, "ms");
  report(`issue E31 ${label} latency p99`, many.p99, "ms");
  report(
    "issue E31 1 client over 1 issuer storage round trips per receipt (with Idempotency-Key; worker Server-Timing)",
    one.totalTrips,
    "round trips",
  );
  report(
    `issue E31 ${label} storage round trips per receipt (with Idempotency-Key; worker Server-Timing)`,
    many.totalTrips,
    "round trips",
  );
  report(`issue E31 ${label} answered En Proceso (finished by the worker's alarms)`, answeredPending, "receipts");
  report(
    `issue E31 ${label} drain: last answer to every receipt final (≈0 when none was answered En Proceso)`,
    drainMs,
    "ms",
  );
  report(`issue E31 ${label} received by the sandbox, each e-NCF once`, concurrentReceived, `of ${N} e-CF`);

  // The same figures side by side.
  const row = (name: string, a: string, b: string) =>
    console.log(`| ${name.padEnd(30)} | ${a.padStart(22)} | ${b.padStart(26)} |`);
  const trips = (f: ReturnType<typeof figures>) =>
    `${f.totalTrips.toFixed(2)} (${f.trips.d1.toFixed(2)}/${f.trips.ledger.toFixed(2)}/${f.trips.r2.toFixed(2)})`;
  row("issue E31", "1 client over 1 issuer", label);
  console.log(`|${"-".repeat(32)}|${"-".repeat(24)}|${"-".repeat(28)}|`);
  row("receipts", String(REFERENCE_N), String(N));
  row("throughput (receipts/s)", one.throughput.toFixed(2), many.throughput.toFixed(2));
  row("latency p50 (ms)", one.p50.toFixed(0), many.p50.toFixed(0));
  row("latency p99 (ms)", one.p99.toFixed(0), many.p99.toFixed(0));
  row("round trips (D1/ledger/R2)", trips(one), trips(many));

  // DGII down (the sandbox refuses every connection): the contingency path, no DGII round trip.
  // Its throughput is read beside GET /health's at the same concurrency, measured in this run.
  const faults = await fetch(`${stack.sandboxUrl}/__sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ mode: "down", reset: true }),
  });
  if (!faults.ok) throw new Error(`the sandbox refused the down fault: HTTP ${faults.status}`);
  section = "DGII down";
  const cpuBeforeDown = cpuByRole();
  const down = await issueMany(concurrentClients, DOWN_N);
  const cpuPerReceipt = cpuPer(cpuBeforeDown, cpuByRole(), DOWN_N);
  const notContingency = down.samples.filter((s) => s.status !== 503 || s.estado !== "Contingencia");
  if (notContingency.length)
    throw new Error(
      `DGII down: expected 503 Contingencia for every receipt, got ${outcomes(notContingency)}; first: ${JSON.stringify(notContingency[0]!.problem)}`,
    );
  section = "GET /health";
  const cpuBeforeHealth = cpuByRole();
  const health = await healthPerSecond(concurrentClients, HEALTH_N);
  const cpuPerHealth = cpuPer(cpuBeforeHealth, cpuByRole(), HEALTH_N);
  const contingency = figures(down);
  report(`issue E31 DGII down (contingency) ${label} throughput (N=${DOWN_N})`, contingency.throughput, "receipts/s");
  report(`issue E31 DGII down (contingency) ${label} latency p50`, contingency.p50, "ms");
  report(`issue E31 DGII down (contingency) ${label} latency p99`, contingency.p99, "ms");
  report(`GET /health ${concurrentClients.length} clients throughput (N=${HEALTH_N})`, health, "requests/s");
  report("issue E31 DGII down throughput / GET /health throughput", contingency.throughput / health, "ratio");
  // Where the CPU went (both phases share the machine's cores, so the ratio follows these sums).
  if (cpuPerReceipt.size) {
    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    report("CPU per contingency receipt, every process of the run", total(cpuPerReceipt), "ms");
    report("CPU per GET /health, every process of the run", total(cpuPerHealth), "ms");
    for (const [role, ms] of cpuPerReceipt)
      console.log(
        `  ${role}: ${ms.toFixed(2)} ms per receipt, ${(cpuPerHealth.get(role) ?? 0).toFixed(2)} ms per /health`,
      );
  }
  report(
    "requests resent after a lost answer (same Idempotency-Key), whole run",
    [...resends.values()].reduce((a, b) => a + b, 0),
    "resends",
  );
  console.log(resendsLine());
} finally {
  await stack.stop();
}
