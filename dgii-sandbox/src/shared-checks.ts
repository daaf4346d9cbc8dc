// The production wiring of DocumentChecks: the same XSD validator, XMLDSig verifier and e-CF
// rules the platform uses (@ecf/shared), so a document the sandbox accepts is one DGII would.
import { validateEcf, verifyXml, xmlToEcf, type Problem } from "@ecf/shared";
import { fingerprintOfDer } from "./signers.ts";
import type { DocumentChecks, RuleFindings } from "./checks.ts";
import type { Mensaje } from "./outcome.ts";
import { CODES } from "./rejection-codes.ts";
import { XsdBatcher } from "./xsd-batcher.ts";

const xsd = new XsdBatcher();

const toMensaje =
  (codigo: number) =>
  (problem: Problem): Mensaje => ({ codigo, valor: `${problem.path}: ${problem.messageEs}` });

/**
 * validateEcf in DGII's mode: totals beyond the tolerance are warnings marked
 * `dgiiOutcome: "aceptado_condicional"` (informe-tecnico §12), every error is a rejection.
 */
function checkRules(xml: string, receivedAt: Date): Promise<RuleFindings> {
  const { problems } = validateEcf(xmlToEcf(xml), { now: receivedAt, totalsPolicy: "dgii" });
  return Promise.resolve({
    errors: problems.filter((p) => p.severity === "error").map(toMensaje(CODES.formatoInvalido.codigo)),
    observations: problems
      .filter((p) => p.details?.dgiiOutcome === "aceptado_condicional")
      .map(toMensaje(CODES.totalesFueraDeTolerancia.codigo)),
  });
}

export const sharedChecks: DocumentChecks = {
  async validateSchema(xml, kind) {
    const result = await xsd.validate(xml, kind);
    return result.valid
      ? { ok: true }
      : { ok: false, errors: result.errors.length ? result.errors : ["El documento no cumple el XSD"] };
  },
  async verifySignature(xml) {
    const result = await verifyXml(xml);
    if (!result.ok) return { ok: false, reason: result.reason, message: result.message };
    const { subject, serialNumber, holderId, notBefore, notAfter, der } = result.certificate;
    return {
      ok: true,
      certificate: { subject, serialNumber, holderId, notBefore, notAfter, fingerprint: fingerprintOfDer(der) },
    };
  },
  checkRules,
};
