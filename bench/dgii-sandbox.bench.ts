// The DGII sandbox under a burst: how many signed e-CF per second go from reception to a final
// state (XSD, signature and rules checked), against validating the same documents one libxml2
// run each (what the sandbox would cost without batching), measured in the same run.
import { ecfToXml, signEcfXml, signXml } from "@ecf/shared";
import { validateXsd } from "@ecf/shared/xml/xsd-validate";
import { startSandbox } from "@ecf/dgii-sandbox/start";
import { createTestIdentity } from "@ecf/shared/test-support/certs";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { report } from "./lib.ts";

const BURST = 40;
const identity = await createTestIdentity();
const documents = await Promise.all(
  Array.from({ length: BURST }, (_, i) =>
    signEcfXml(ecfToXml(makeEcf("31", { sequence: 1000 + i })), identity.privateKey, identity.certificateDer),
  ),
);
const sandbox = await startSandbox({ port: 0, processingMs: 0 });
const base = `${sandbox.url}/testecf`;

async function post(path: string, xml: string, fileName: string, token?: string) {
  const form = new FormData();
  form.append("xml", new Blob([xml], { type: "text/xml" }), fileName);
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    body: form,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return response.json() as Promise<Record<string, string>>;
}

const seed = await (await fetch(`${base}/autenticacion/api/autenticacion/semilla`)).text();
const { token } = await post(
  "/autenticacion/api/autenticacion/validarsemilla",
  await signXml(seed, identity.privateKey, identity.certificateDer),
  "semilla.xml",
);

async function untilFinal(trackId: string) {
  for (;;) {
    const response = await fetch(`${base}/consultaresultado/api/consultas/estado?trackid=${trackId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { codigo: number };
    if (body.codigo !== 3) return body.codigo;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let started = performance.now();
const codigos = await Promise.all(
  documents.map(async (xml, i) => {
    const { trackId } = await post(
      "/recepcion/api/facturaselectronicas",
      xml,
      `130862346E31${String(1000 + i).padStart(10, "0")}.xml`,
      token!,
    );
    return untilFinal(trackId!);
  }),
);
const sandboxRate = (BURST * 1000) / (performance.now() - started);
await sandbox.close();
if (codigos.some((c) => c !== 1)) throw new Error(`not every e-CF was accepted: ${codigos.join(",")}`);

started = performance.now();
for (const xml of documents.slice(0, 8)) await validateXsd(xml, "31");
const oneByOneRate = (8 * 1000) / (performance.now() - started);

report("sandbox_burst_reception_to_final", sandboxRate, "e-CF/s");
report("xsd_validation_one_run_per_document", oneByOneRate, "e-CF/s");
report("sandbox_vs_unbatched_xsd", sandboxRate / oneByOneRate, "x");
