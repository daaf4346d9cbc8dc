// The e-CF domain: validateEcf (complete + canonicalize + every check) and serialization, in
// documents per second, for a 50-line E31 and a 1000-line E32. The reference, measured in the
// same run, is JSON.parse of the same requests (the least any request handler pays). The
// requests are 64 variants with different names, quantities and prices, as a day's sales are:
// what validation remembers between documents helps only where real documents repeat themselves.
// Then reception's XSD check of a received 50-line E31: the model validator the worker uses beside
// libxml2 (xmllint-wasm in Node), one document per run and 16 per run (as the worker once batched).
import { opsPerSecond, percentile, report } from "./lib.ts";
import { validateEcf } from "@ecf/shared/validate";
import { ecfToXml } from "@ecf/shared/xml/serialize";
import { validateXsdModel } from "@ecf/shared/xml/xsd-model-validate";
import { validateXsd, validateXsdMany } from "@ecf/shared/xml/xsd-validate";
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
  if (d.Encabezado.IdDoc.TipoeCF === "32")
    d.Encabezado.Comprador = { ...d.Encabezado.Comprador, RNCComprador: "131880738", RazonSocialComprador: "DGII" };
  return { body: d, emisor, eNCF, fv };
}

const VARIANTS = 64;

/** The k-th variant of a request: each line gets its own name, quantity and price. */
function variant(body: J, k: number): J {
  const d = JSON.parse(JSON.stringify(body)) as J;
  d.DetallesItems.forEach((item: J, i: number) => {
    const n = k * 7919 + i * 104729;
    item.NombreItem = `Artículo ${k}-${i}`;
    item.CantidadItem = `${1 + (n % 9)}.${String(n % 100).padStart(2, "0")}`;
    if (item.PrecioUnitarioItem !== undefined)
      item.PrecioUnitarioItem = `${10 + (n % 49_991)}.${String((n >> 3) % 100).padStart(2, "0")}`;
  });
  return d;
}

for (const [label, tipo, lines] of [
  ["E31 50 lines", "31", 50],
  ["E32 1000 lines", "32", 1000],
] as const) {
  const { body, emisor, eNCF, fv } = request(makeEcf(tipo, { lines }));
  const context = { now, eNCF, emisor, ...(fv ? { fechaVencimientoSecuencia: fv } : {}) };
  const texts = Array.from({ length: VARIANTS }, (_, k) => JSON.stringify(variant(body, k)));
  for (const text of texts) {
    const check = validateEcf(JSON.parse(text), context);
    if (!check.ok) throw new Error(`${label}: ${JSON.stringify(check.problems.slice(0, 3))}`);
  }
  let next = 0;
  const text = () => texts[next++ % VARIANTS]!;
  // Warm up past lazy model building and JIT tiers so the first figure is not penalised.
  for (let i = 0; i < 20; i++) ecfToXml(validateEcf(JSON.parse(text()), context).document);
  // Rounds that alternate the reference and the subjects, so a busy machine slows both alike:
  // the ratio is the median of the rounds', the rates each one's best.
  const rounds = { reference: [] as number[], validate: [] as number[], both: [] as number[], ratio: [] as number[] };
  for (let round = 0; round < 5; round++) {
    const reference = await opsPerSecond(() => JSON.parse(text()), 200);
    const validate = await opsPerSecond(() => validateEcf(JSON.parse(text()), context), 300);
    const both = await opsPerSecond(() => ecfToXml(validateEcf(JSON.parse(text()), context).document), 300);
    rounds.reference.push(reference);
    rounds.validate.push(validate);
    rounds.both.push(both);
    rounds.ratio.push(reference / both);
  }
  report(`domain validate ${label}`, Math.max(...rounds.validate), "docs/s");
  report(`domain validate+serialize ${label}`, Math.max(...rounds.both), "docs/s");
  report(`domain JSON.parse ${label} (reference)`, Math.max(...rounds.reference), "docs/s");
  report(`domain validate+serialize ${label} vs JSON.parse`, percentile(rounds.ratio, 50), "x slower");
}

{
  const label = "received E31 50 lines";
  const base = ecfToXml(makeEcf("31", { lines: 50 }));
  const BATCH = 16;
  const xmls = Array.from({ length: BATCH }, (_, k) =>
    base.replace(/<NombreItem>([^<]*)<\/NombreItem>/g, (_m, name: string) => `<NombreItem>${name} ${k}</NombreItem>`),
  );
  for (const xml of xmls) {
    const ours = validateXsdModel(xml, "31", { requireSignature: false });
    if (!ours.valid) throw new Error(`${label}: ${ours.errors.join("; ")}`);
  }
  const libxml2 = await validateXsdMany(xmls, "31", { requireSignature: false });
  if (libxml2.some((r) => !r.valid)) throw new Error(`${label}: libxml2 refuses a variant`);
  let next = 0;
  const xml = () => xmls[next++ % BATCH]!;
  const model = await opsPerSecond(() => validateXsdModel(xml(), "31", { requireSignature: false }), 500);
  const single = await opsPerSecond(() => validateXsd(xml(), "31", { requireSignature: false }), 1000);
  const batched = BATCH * (await opsPerSecond(() => validateXsdMany(xmls, "31", { requireSignature: false }), 1000));
  report(`domain XSD check ${label}, model validator`, model, "docs/s");
  report(`domain XSD check ${label}, libxml2 (xmllint-wasm) one per run`, single, "docs/s");
  report(`domain XSD check ${label}, libxml2 (xmllint-wasm) ${BATCH} per run`, batched, "docs/s");
}
