// The three judgements the sandbox delegates to @ecf/shared: XSD validation, signature
// verification and the totals rules. They are injected so that the sandbox never carries its own
// validator or XMLDSig verifier; `sharedChecks` (shared-checks.ts) is the production wiring.
import type { Mensaje } from "./outcome.ts";

/** Document kinds the XSD validator knows. */
export type SchemaKind =
  | "31"
  | "32"
  | "33"
  | "34"
  | "41"
  | "43"
  | "44"
  | "45"
  | "46"
  | "47"
  | "RFCE"
  | "ARECF"
  | "ACECF"
  | "ANECF"
  | "Semilla";

export type SchemaResult = { ok: true } | { ok: false; errors: string[] };

export interface SignerCertificate {
  subject: string;
  serialNumber: string;
  /** RNC or cédula of the holder, when the certificate's serialNumber carries one. */
  holderId: string | null;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 (hex) of the certificate's DER: how the signer registry names it (signers.ts). */
  fingerprint?: string;
}

export type SignatureResult =
  | { ok: true; certificate: SignerCertificate }
  | { ok: false; reason: string; message: string };

export interface RuleFindings {
  errors: Mensaje[];
  observations: Mensaje[];
}

export interface DocumentChecks {
  validateSchema(xml: string, kind: SchemaKind): Promise<SchemaResult>;
  verifySignature(xml: string): Promise<SignatureResult>;
  /**
   * The format rules beyond the XSD (obligation matrix, dates, per-type rules, totals): `errors`
   * reject the e-CF, `observations` (totals beyond DGII's tolerance) make it Aceptado Condicional.
   */
  checkRules(xml: string, receivedAt: Date): Promise<RuleFindings>;
}
