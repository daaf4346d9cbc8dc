// One measurement of the contingency ratio of one checkout of this repository, for
// contingency.bench.ts, which runs it as a child process (`tsx bench/contingency-ratio.ts <tree>`)
// for this tree and for a past revision in turn. Whatever the tree, the method is the same: <tree>'s
// own local stack (its wrangler dev and DGII sandbox) and its own issuer set-up, 10 issuers, 50
// clients (5 per issuer, logged in with POST /login) sending plain fetch requests, DGII down at the
// sandbox; a warm-up, then DOWN_N E31 receipts (each 503 Contingencia, each with its own
// Idempotency-Key), then HEALTH_N GET /health over the same clients. A request whose answer was lost
// (a network error, or a proxy's non-JSON 502/503/504) is sent again with the same key and counted.
// Prints one JSON line: receipts/s, /health per s, their ratio and the CPU per unit by process.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { rncCheckDigit } from "@ecf/shared";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import { benchE31, cpuByRole, cpuPer } from "./lib.ts";

const ISSUERS = 10;
const CLIENTS_PER_ISSUER = 5;
const WARM_UP_N = 60;
const DOWN_N = Number(process.env.CONTINGENCY_BENCH_DOWN_N ?? 300);
const HEALTH_N = Number(process.env.CONTINGENCY_BENCH_HEALTH_N ?? 2000);
const RESENDS_PER_CALL = 5;

export interface RatioMeasurement {
  receiptsPerSecond: number;
  healthPerSecond: number;
  ratio: number;
  resends: number;
  cpuPerReceipt: Record<string, number>;
  cpuPerHealth: Record<string, number>;
}

const tree = process.argv[2];
if (!tree) throw new Error("usage: tsx bench/contingency-ratio.ts <checkout of this repository>");
// The tree's own modules: its local stack and issuer set-up, resolved against its own node_modules.
const { startLocalStack } = (await import(
  pathToFileURL(join(tree, "scripts/local-stack.ts")).href
)) as typeof import("../scripts/local-stack.ts");
const { setUpIssuer } = (await import(
  pathToFileURL(join(tree, "scripts/certify-lib/issuer.ts")).href
)) as typeof import("../scripts/certify-lib/issuer.ts");

let resends = 0;
/** fetch, sent again (same request, same Idempotency-Key) while its answer is lost on the way. */
async function send(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(url, init);
      const lost =
        [502, 503, 504].includes(response.status) && !(response.headers.get("Content-Type") ?? "").includes("json");
      if (!lost || attempt === RESENDS_PER_CALL) return response;
      await response.body?.cancel();
    } catch (error) {
      if (attempt === RESENDS_PER_CALL) throw error;
    }
    resends++;
    await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
  }
}

const stack = await startLocalStack({ processingMs: 0, frozen: true });
try {
  const tokens = (
    await Promise.all(
      Array.from({ length: ISSUERS }, async (_, i) => {
        const base = `13188${String(300 + i).padStart(3, "0")}`;
        const rnc = `${base}${rncCheckDigit(base)}`;
        const identity = await createTestIdentity({ rnc, commonName: `Emisora Contingencia ${i} SRL` });
        const { apiKey, apiSecret } = await setUpIssuer(
          stack.workerUrl,
          stack.adminSecret,
          {
            rnc,
            legalName: `Emisora Contingencia ${i} SRL`,
            address: "Av. Winston Churchill 1",
            dgiiEnvironment: "testecf",
          },
          { p12: forgeP12(identity, "bench1234"), password: "bench1234" },
          [{ tipo: "31", rangeFrom: 1, rangeTo: 10_000, expiresOn: "2028-12-31" }],
          { url: stack.sandboxUrl, certificatePem: identity.certificatePem },
        );
        return Promise.all(
          Array.from({ length: CLIENTS_PER_ISSUER }, async () => {
            const login = await fetch(`${stack.workerUrl}/login`, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ apiKey, apiSecret }),
            });
            if (!login.ok) throw new Error(`POST /login → ${login.status}: ${await login.text()}`);
            return ((await login.json()) as { token: string }).token;
          }),
        );
      }),
    )
  ).flat();
  const down = await fetch(`${stack.sandboxUrl}/__sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ mode: "down", reset: true }),
  });
  if (!down.ok) throw new Error(`the sandbox refused the down fault: HTTP ${down.status}`);

  /** `total` calls spread over every client, each client one call at a time; calls per second. */
  const spread = async (total: number, call: (token: string) => Promise<void>): Promise<number> => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      tokens.map(async (token) => {
        while (next++ < total) await call(token);
      }),
    );
    return (total * 1000) / (performance.now() - started);
  };
  let numbered = 0;
  const issueOne = async (token: string) => {
    const response = await send(`${stack.workerUrl}/fe/recepcion/ecf`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        "Idempotency-Key": randomUUID(),
      },
      body: JSON.stringify(benchE31(numbered++)),
    });
    const body = (await response.json()) as { estado?: string };
    if (response.status !== 503 || body.estado !== "Contingencia")
      throw new Error(`DGII down: expected 503 Contingencia, got ${response.status} ${JSON.stringify(body)}`);
  };
  await spread(WARM_UP_N, issueOne);

  const beforeDown = cpuByRole();
  const receiptsPerSecond = await spread(DOWN_N, issueOne);
  const cpuPerReceipt = cpuPer(beforeDown, cpuByRole(), DOWN_N);
  const beforeHealth = cpuByRole();
  const healthPerSecond = await spread(HEALTH_N, async () => {
    const response = await send(`${stack.workerUrl}/health`, {});
    if (!response.ok) throw new Error(`GET /health → ${response.status}`);
    await response.arrayBuffer();
  });
  const cpuPerHealth = cpuPer(beforeHealth, cpuByRole(), HEALTH_N);
  const measurement: RatioMeasurement = {
    receiptsPerSecond,
    healthPerSecond,
    ratio: receiptsPerSecond / healthPerSecond,
    resends,
    cpuPerReceipt: Object.fromEntries(cpuPerReceipt),
    cpuPerHealth: Object.fromEntries(cpuPerHealth),
  };
  console.log(JSON.stringify(measurement));
} finally {
  await stack.stop();
}
