// Issuing end to end: a private wrangler dev and DGII sandbox, one issuer, N E31 issued one after
// another through POST /fe/recepcion/ecf. Prints throughput and latency (p50, p99), and how a
// receipt's time splits: validation (validateEcf) and signing (ecfToXml + signEcfXml) measured
// in-process in Node on the same document (workerd's clock stands still during computation),
// storage (D1 numbering, R2 archive, D1 record) and transport (everything with DGII: its HTTP
// round trips and the waits between result polls) as the worker measured them and reported in
// its Server-Timing header, and the rest (HTTP to the worker, auth, framework). It refuses to
// print figures unless every receipt came back Aceptado. ISSUE_BENCH_N sets N (default 100).
import { ecfToXml, signEcfXml, validateEcf, importSigningKey, type ValidationContext } from "@ecf/shared";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { answerOf, type components, createClient, ProblemError } from "@ecf/client";
import { issuingClient, revokeKey, setUpIssuer } from "../scripts/certify-lib/issuer.ts";
import { startLocalStack } from "../scripts/local-stack.ts";
import { benchE31, percentile, report, serverTiming } from "./lib.ts";

type EcfRequest = components["schemas"]["EcfRequest"];

const N = Number(process.env.ISSUE_BENCH_N ?? 100);
const RNC = "131880681";
const LEGAL_NAME = "Bench Comercial SRL";
const ADDRESS = "Av. Winston Churchill 1099";

const request = (i: number): Record<string, unknown> => benchE31(i);

// The sandbox judges at once (processingMs 0) but its XSD check takes a few hundred ms on a busy
// machine; the request polls after 100, 300 and 1000 ms, so every receipt comes back judged.
const stack = await startLocalStack({ processingMs: 0, pollDelaysMs: "100,300,1000" });

/**
 * Storage round trips per issued E31 before the ledger moved to Durable Objects (API 1.7, commit
 * 96fd56c), counted on its code path: the key and the company (twice each: the route's auth was
 * registered for both "/fe/recepcion/ecf" and "/fe/recepcion/ecf/*"), the range, the quota, the
 * number, the record, the company again, the send attempt, the track id, the verdict, the claim's
 * release (all D1), plus the R2 archive and the background PDF.
 */
const ROUND_TRIPS_BEFORE = { d1: 13, ledger: 0, r2: 2 };
try {
  const identity = await createTestIdentity({ rnc: RNC, commonName: LEGAL_NAME });
  const setup = await setUpIssuer(
    stack.workerUrl,
    stack.adminSecret,
    { rnc: RNC, legalName: LEGAL_NAME, address: ADDRESS, dgiiEnvironment: "testecf" },
    { p12: forgeP12(identity, "bench1234"), password: "bench1234" },
    [{ tipo: "31", rangeFrom: 1, rangeTo: N + 100, expiresOn: "2028-12-31" }],
    { url: stack.sandboxUrl, certificatePem: identity.certificatePem },
  );
  const client = await issuingClient(stack.workerUrl, setup.apiKey, setup.apiSecret);
  // The measured requests, to read the Server-Timing header of each answer. Without an
  // Idempotency-Key, as before the client existed: the key's claim and stored answer are ledger
  // round trips of their own, not part of the bare issuing path measured here.
  const measured = createClient({
    baseUrl: stack.workerUrl,
    credentials: { apiKey: setup.apiKey, apiSecret: setup.apiSecret },
    idempotencyKeys: false,
  });
  await measured.session.bearer();
  const issue = async (document: Record<string, unknown>) => {
    try {
      const sent = await measured.POST("/fe/recepcion/ecf", { body: document as EcfRequest });
      const { response } = sent;
      const answer = answerOf(sent); // a Contingencia's 503 is an answer too
      return {
        status: response.status,
        body: { estado: answer?.estado } as { estado?: string; code?: string },
        phases: serverTiming(response.headers.get("Server-Timing")),
      };
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return {
        status: error.status,
        body: { code: error.code } as { estado?: string; code?: string },
        phases: {} as Record<string, number>,
      };
    }
  };

  // Warm-up: the first requests compile and cache (isolate, signing key, DGII token).
  for (let i = 0; i < 3; i++) {
    const warm = await client.issue(request(-i));
    if (!warm.answer)
      throw new Error(`the service refuses the bench document: HTTP ${warm.status} ${JSON.stringify(warm.problem)}`);
  }

  const latencies: number[] = [];
  const phases = {
    storage: [] as number[],
    transmit: [] as number[],
    dgii: [] as number[],
    "dgii-wait": [] as number[],
    "rt-d1": [] as number[],
    "rt-ledger": [] as number[],
    "rt-r2": [] as number[],
  };
  const estados = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const sent = await issue(request(i));
    latencies.push(performance.now() - t0);
    const estado =
      sent.status < 400 || sent.status === 503
        ? (sent.body.estado ?? `HTTP ${sent.status}`)
        : `HTTP ${sent.status} ${sent.body.code ?? ""}`.trim();
    estados.set(estado, (estados.get(estado) ?? 0) + 1);
    for (const name of Object.keys(phases) as (keyof typeof phases)[]) phases[name].push(sent.phases[name] ?? 0);
    if (sent.phases.storage === undefined || sent.phases.transmit === undefined)
      throw new Error(`no Server-Timing storage/transmit in the answer (HTTP ${sent.status})`);
  }
  const elapsed = performance.now() - started;
  await revokeKey(stack.workerUrl, stack.adminSecret, setup.keyId);
  const outcomes = [...estados].map(([k, v]) => `${k} ${v}`).join(", ");
  console.log(`issue E31 outcomes: ${outcomes} (of ${N})`);
  // A receipt still En Proceso, in contingency or rejected took another path: its time is not an issue's.
  if (estados.get("Aceptado") !== N)
    throw new Error(`refusing to measure: not every receipt was Aceptado (${outcomes})`);

  // The same document in this process: validation, then XML and the signature.
  const key = await importSigningKey(identity.pkcs8);
  const context: ValidationContext = {
    now: new Date(),
    eNCF: "E310000000001",
    fechaVencimientoSecuencia: "31-12-2028",
    emisor: { RNCEmisor: RNC, RazonSocialEmisor: LEGAL_NAME, DireccionEmisor: ADDRESS },
  };
  const validation: number[] = [];
  const signing: number[] = [];
  for (let i = 0; i < Math.max(N, 50); i++) {
    const body = request(i);
    const t0 = performance.now();
    const result = validateEcf(body, context);
    const t1 = performance.now();
    if (!result.ok) throw new Error(`bench document does not validate: ${JSON.stringify(result.problems)}`);
    await signEcfXml(ecfToXml(result.document), key, identity.certificateDer);
    const t2 = performance.now();
    validation.push(t1 - t0);
    signing.push(t2 - t1);
  }

  const p50 = percentile(latencies, 50);
  const v50 = percentile(validation, 50);
  const s50 = percentile(signing, 50);
  const storage50 = percentile(phases.storage, 50);
  const transport50 = percentile(phases.transmit, 50);
  const rest = Math.max(0, p50 - v50 - s50 - storage50 - transport50);
  report(`issue E31 sequential throughput (N=${N})`, (N * 1000) / elapsed, "receipts/s");
  report("issue E31 end-to-end latency p50", p50, "ms");
  report("issue E31 end-to-end latency p99", percentile(latencies, 99), "ms");
  report("issue E31 validation p50 (validateEcf, in-process Node)", v50, "ms");
  report("issue E31 signing p50 (ecfToXml + signEcfXml, in-process Node)", s50, "ms");
  report("issue E31 storage p50 (D1 numbering, R2 archive, D1 record; worker Server-Timing)", storage50, "ms");
  report("issue E31 storage p99", percentile(phases.storage, 99), "ms");
  report("issue E31 transport p50 (everything with DGII; worker Server-Timing)", transport50, "ms");
  report("issue E31 transport p99", percentile(phases.transmit, 99), "ms");
  report("issue E31 transport: DGII HTTP round trips p50", percentile(phases.dgii, 50), "ms");
  report("issue E31 transport: waits between result polls p50", percentile(phases["dgii-wait"], 50), "ms");
  report("issue E31 rest p50 (derived: end-to-end − the above; HTTP to the worker, auth, framework)", rest, "ms");
  // Counted, not timed: the same for every receipt of this path.
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const after = { d1: mean(phases["rt-d1"]), ledger: mean(phases["rt-ledger"]), r2: mean(phases["rt-r2"]) };
  const total = (t: { d1: number; ledger: number; r2: number }) => t.d1 + t.ledger + t.r2;
  report(
    "issue E31 storage round trips per receipt, before (D1 ledger, counted on its code path)",
    total(ROUND_TRIPS_BEFORE),
    "round trips",
  );
  report(
    "issue E31 storage round trips per receipt, now (D1 + ledger RPCs + R2, counted by the worker)",
    total(after),
    "round trips",
  );
  report("issue E31 of which D1 (directory reads)", after.d1, "round trips");
  report("issue E31 of which ledger RPCs (number, record, each state change)", after.ledger, "round trips");
  report("issue E31 of which R2", after.r2, "round trips");
  const share = (x: number) => `${((x / p50) * 100).toFixed(1)} %`;
  console.log(
    `issue E31 split of p50: validation ${share(v50)}, signing ${share(s50)}, storage ${share(storage50)}, transport ${share(transport50)}, rest (derived) ${share(rest)}`,
  );
} finally {
  await stack.stop();
}
