// The e-CF domain: validateEcf (complete + canonicalize + every check) and serialization, in
// documents per second, for a 50-line E31 and a 1000-line E32. The reference, measured in the
// same run, is a JSON round trip of the same document (the least any request handler pays).
import { opsPerSecond, report } from "./lib.ts";
import { validateEcf } from "@ecf/shared/validate";
import { ecfToXml } from "@ecf/shared/xml/serialize";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";

type J = Record<string, any>;
const now = new Date("2025-04-01T14:15:00Z");

/** A request as a client sends it: the derivable parts (totals, line amounts, Emisor...) left out. */
function request(doc: J): { body: J; emisor: J; eNCF: string; fv?: string } {
  const d = JSON.parse(JSON.stringify(doc)) as J;
  const emisor = d.Encabezado.Emisor;
  const eNCF = d.Encabezado.IdDoc.eNCF;
  const fv = d.Encabezado.IdDoc.FechaVencimientoSecuencia;
  delete d.Encabezado.Emisor;
  delete d.Encabezado.Totales;
  delete d.Encabezado.IdDoc.eNCF;
  delete d.Encabezado.IdDoc.FechaVencimientoSecuencia;
  delete d.FechaHoraFirma;
  for (const item of d.DetallesItems) delete item.MontoItem;
  if (d.Encabezado.IdDoc.TipoeCF === "32") d.Encabezado.Comprador = { ...d.Encabezado.Comprador, RNCComprador: "131880738", RazonSocialComprador: "DGII" };
  return { body: d, emisor, eNCF, fv };
}

for (const [label, tipo, lines] of [
  ["E31 50 lines", "31", 50],
  ["E32 1000 lines", "32", 1000],
] as const) {
  const { body, emisor, eNCF, fv } = request(makeEcf(tipo, { lines }));
  const context = { now, eNCF, emisor, ...(fv ? { fechaVencimientoSecuencia: fv } : {}) };
  const check = validateEcf(body, context);
  if (!check.ok) throw new Error(`${label}: ${JSON.stringify(check.problems.slice(0, 3))}`);
  const text = JSON.stringify(body);
  // Warm up past lazy model building and JIT tiers so the first figure is not penalised.
  for (let i = 0; i < 20; i++) ecfToXml(validateEcf(JSON.parse(text), context).document);
  const reference = await opsPerSecond(() => JSON.parse(text), 500);
  const validate = await opsPerSecond(() => validateEcf(JSON.parse(text), context), 1000);
  const both = await opsPerSecond(() => ecfToXml(validateEcf(JSON.parse(text), context).document), 1000);
  report(`domain validate ${label}`, validate, "docs/s");
  report(`domain validate+serialize ${label}`, both, "docs/s");
  report(`domain validate+serialize ${label} vs JSON.parse`, reference / both, "x slower");
}
