// Issuing end to end: a private wrangler dev and DGII sandbox, one issuer, N E31 issued one after
// another through POST /fe/recepcion/ecf. Prints throughput and latency (p50, p99), and how a
// receipt's time splits: validation (validateEcf) and signing (ecfToXml + signEcfXml) measured
// in-process in Node on the same document, storage + transport derived as the rest of the
// end-to-end latency (D1, R2, the DGII round trips and polls, HTTP, and workerd vs Node
// differences). ISSUE_BENCH_N sets N (default 100).
import { ecfToXml, signEcfXml, validateEcf, importSigningKey, type ValidationContext } from "@ecf/shared";
import { createTestIdentity, forgeP12 } from "../shared/test/support/certs.ts";
import { issuingClient, revokeKey, setUpIssuer } from "../scripts/certify-lib/issuer.ts";
import { startLocalStack } from "../scripts/local-stack.ts";
import { percentile, report } from "./lib.ts";

const N = Number(process.env.ISSUE_BENCH_N ?? 100);
const RNC = "131880681";
const LEGAL_NAME = "Bench Comercial SRL";
const ADDRESS = "Av. Winston Churchill 1099";

/** What an integration sends: the service numbers it and derives Emisor, dates and totals. */
function request(i: number): Record<string, unknown> {
  return {
    Encabezado: {
      IdDoc: { TipoeCF: "31", IndicadorMontoGravado: "0", TipoIngresos: "01", TipoPago: "1" },
      Comprador: { RNCComprador: "131880738", RazonSocialComprador: "Cliente de Prueba SRL" },
    },
    DetallesItems: [
      { IndicadorFacturacion: "1", NombreItem: `Servicio ${i}`, IndicadorBienoServicio: "2", CantidadItem: "1", PrecioUnitarioItem: "1000.00" },
      { IndicadorFacturacion: "1", NombreItem: "Producto A", IndicadorBienoServicio: "1", CantidadItem: "3", PrecioUnitarioItem: "250.50" },
      { IndicadorFacturacion: "4", NombreItem: "Producto exento", IndicadorBienoServicio: "1", CantidadItem: "2", PrecioUnitarioItem: "99.99" },
    ],
  };
}

// The sandbox judges at once (processingMs 0) but its XSD check takes a few hundred ms on a busy
// machine; the request polls after 100, 200 and 400 ms, so most receipts come back judged.
const stack = await startLocalStack({ processingMs: 0, pollDelaysMs: "100,200,400" });
try {
  const identity = await createTestIdentity({ rnc: RNC, commonName: LEGAL_NAME });
  const setup = await setUpIssuer(
    stack.workerUrl,
    stack.adminSecret,
    { rnc: RNC, legalName: LEGAL_NAME, address: ADDRESS, dgiiEnvironment: "testecf" },
    { p12: forgeP12(identity, "bench1234"), password: "bench1234" },
    [{ tipo: "31", rangeFrom: 1, rangeTo: N + 100, expiresOn: "2028-12-31" }],
  );
  const client = await issuingClient(stack.workerUrl, setup.apiKey, setup.apiSecret);

  // Warm-up: the first requests compile and cache (isolate, signing key, DGII token).
  for (let i = 0; i < 3; i++) {
    const warm = await client.issue(request(-i));
    if (!warm.answer) throw new Error(`the service refuses the bench document: HTTP ${warm.status} ${JSON.stringify(warm.problem)}`);
  }

  const latencies: number[] = [];
  const estados = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const sent = await client.issue(request(i));
    latencies.push(performance.now() - t0);
    const estado = sent.answer?.estado ?? `HTTP ${sent.status} ${sent.problem?.code ?? ""}`.trim();
    estados.set(estado, (estados.get(estado) ?? 0) + 1);
  }
  const elapsed = performance.now() - started;
  await revokeKey(stack.workerUrl, stack.adminSecret, setup.keyId);

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
  const rest = Math.max(0, p50 - v50 - s50);
  console.log(`issue E31 outcomes: ${[...estados].map(([k, v]) => `${k} ${v}`).join(", ")} (of ${N})`);
  report(`issue E31 sequential throughput (N=${N})`, (N * 1000) / elapsed, "receipts/s");
  report("issue E31 end-to-end latency p50", p50, "ms");
  report("issue E31 end-to-end latency p99", percentile(latencies, 99), "ms");
  report("issue E31 validation p50 (validateEcf, in-process Node)", v50, "ms");
  report("issue E31 signing p50 (ecfToXml + signEcfXml, in-process Node)", s50, "ms");
  report("issue E31 storage + transport p50 (derived: end-to-end p50 − validation − signing; D1, R2, HTTP, DGII sandbox round trips and polls)", rest, "ms");
  const share = (x: number) => `${((x / p50) * 100).toFixed(1)} %`;
  console.log(`issue E31 split of p50: validation ${share(v50)}, signing ${share(s50)}, storage + transport (derived) ${share(rest)}`);
} finally {
  await stack.stop();
}
