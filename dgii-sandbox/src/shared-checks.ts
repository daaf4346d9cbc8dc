// The production wiring of DocumentChecks: the same XSD validator, XMLDSig verifier and totals
// rules the platform uses (@ecf/shared), so a document the sandbox accepts is one DGII would.
// The totals check composes shared's computeTotals and tolerance rule (informe-tecnico §12).
import {
  LINE_TOLERANCE,
  computeTotalsDetailed,
  dec,
  globalTolerance,
  judgeDifference,
  verifyXml,
  xmlToEcf,
  type Totales,
} from "@ecf/shared";
import type { DocumentChecks } from "./checks.ts";
import type { Mensaje } from "./outcome.ts";
import { CODES } from "./rejection-codes.ts";
import { XsdBatcher } from "./xsd-batcher.ts";
import { findAll, parseXml, text } from "./xml-read.ts";

/** Header amounts compared with the computed ones (the scalar Totales fields). */
const COMPARED: readonly (keyof Totales)[] = [
  "MontoGravadoTotal",
  "MontoGravadoI1",
  "MontoGravadoI2",
  "MontoGravadoI3",
  "MontoExento",
  "TotalITBIS",
  "TotalITBIS1",
  "TotalITBIS2",
  "TotalITBIS3",
  "MontoImpuestoAdicional",
  "MontoTotal",
  "MontoNoFacturable",
];

async function checkTotals(xml: string): Promise<Mensaje[]> {
  const doc = xmlToEcf(xml);
  const computed = computeTotalsDetailed(doc, { basis: "recomputed" });
  const root = parseXml(xml);
  const mensajes: Mensaje[] = [];
  const codigo = CODES.totalesFueraDeTolerancia.codigo;

  const tolerance = globalTolerance(computed.lines.length);
  for (const field of COMPARED) {
    const sent = text(root, ["Encabezado", "Totales", field]);
    const expected = computed.Totales[field];
    if (sent === undefined || typeof expected !== "string") continue;
    const judged = judgeDifference(dec(sent), dec(expected), tolerance);
    if (!judged.withinTolerance) {
      mensajes.push({ codigo, valor: `${field}: enviado ${judged.sent}, calculado ${judged.computed}, diferencia ${judged.difference} excede la tolerancia ±${judged.tolerance}` });
    }
  }

  const items = findAll(root, ["DetallesItems", "Item"]);
  for (const line of computed.lines) {
    const sent = items[line.index] ? text(items[line.index]!, ["MontoItem"]) : undefined;
    if (line.computedMontoItem === undefined || sent === undefined) continue;
    const judged = judgeDifference(dec(sent), line.computedMontoItem, LINE_TOLERANCE);
    if (!judged.withinTolerance) {
      mensajes.push({ codigo, valor: `Item ${line.index + 1} MontoItem: enviado ${judged.sent}, calculado ${judged.computed}, diferencia ${judged.difference} excede la tolerancia ±${judged.tolerance}` });
    }
  }
  return mensajes;
}

const xsd = new XsdBatcher();

export const sharedChecks: DocumentChecks = {
  async validateSchema(xml, kind) {
    const result = await xsd.validate(xml, kind);
    return result.valid ? { ok: true } : { ok: false, errors: result.errors.length ? result.errors : ["El documento no cumple el XSD"] };
  },
  async verifySignature(xml) {
    const result = await verifyXml(xml);
    if (!result.ok) return { ok: false, reason: result.reason, message: result.message };
    const { subject, serialNumber, holderId, notBefore, notAfter } = result.certificate;
    return { ok: true, certificate: { subject, serialNumber, holderId, notBefore, notAfter } };
  },
  checkTotals,
};
