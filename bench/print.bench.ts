// The printed RI: rendering a receipt's PDF in Node, p50 and p99 per layout (goal: an A4 under
// 5 ms p50). The reference, measured in the same run, is serializing the same e-CF to XML, which
// every issued receipt pays.
import type { JsonDocument } from "@ecf/shared";
import { ecfToXml } from "@ecf/shared/xml/serialize";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { renderReceiptPdf } from "../worker/src/print/render.ts";
import { percentile, report } from "./lib.ts";

const SAMPLES = 300;
const document = makeEcf("31", { sequence: 1, lines: 10 });
// The renderer reads the document as JSON (as xmlToEcf returns it).
const json = JSON.parse(JSON.stringify(document)) as JsonDocument;
const timbreUrl =
  "https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=131880681&RncComprador=131880738&ENcf=E310000000001&FechaEmision=01-04-2025&MontoTotal=11800.00&FechaFirma=01-04-2025%2010:00:00&CodigoSeguridad=ABC123";

/** Milliseconds per call, one sample per call, after a warm-up. */
async function samples(fn: () => unknown): Promise<number[]> {
  for (let i = 0; i < 20; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}

const reference = await samples(() => ecfToXml(document));
report("reference: ecfToXml of the same E31 (10 lines) p50", percentile(reference, 50), "ms");
for (const layout of ["a4", "letter", "roll80"] as const) {
  const times = await samples(() =>
    renderReceiptPdf(json, { securityCode: "ABC123", fechaHoraFirma: "01-04-2025 10:00:00", timbreUrl, layout }),
  );
  report(`PDF ${layout} E31 (10 lines) p50`, percentile(times, 50), "ms");
  report(`PDF ${layout} E31 (10 lines) p99`, percentile(times, 99), "ms");
  report(`PDF ${layout} p50 vs ecfToXml p50`, percentile(times, 50) / percentile(reference, 50), "x");
}
