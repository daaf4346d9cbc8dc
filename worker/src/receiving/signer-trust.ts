// Who may sign what reaches us from outside (suppliers' e-CF, commercial approvals, receiver
// seeds): a certificate that chains to a configured certification authority (TRUSTED_CA_PEM:
// INDOTEL-accredited CAs in production, the sandbox's demo CA locally), valid when it signed.
// "Accept any" (TRUST_ANY_CERTIFICATE_AUTHORITY) is for tests and only ever against the sandbox.
import {
  checkCertificateTrust,
  keyInfoCertificates,
  trustStoreFromPem,
  type TrustResult,
  type TrustStore,
} from "@ecf/shared";

export type TrustEnv = Pick<Env, "TRUSTED_CA_PEM" | "TRUST_ANY_CERTIFICATE_AUTHORITY" | "DGII_TARGET">;

let cached: { key: string; store: TrustStore } | undefined;

/** The configured trust store, parsed once per isolate (and again only if the configuration changes). */
export function signerTrustStore(env: TrustEnv): TrustStore {
  const acceptAny = String(env.TRUST_ANY_CERTIFICATE_AUTHORITY) === "true" && String(env.DGII_TARGET) !== "dgii";
  const pem = String(env.TRUSTED_CA_PEM ?? "");
  const key = `${acceptAny}\n${pem}`;
  if (cached?.key !== key) cached = { key, store: trustStoreFromPem(pem, { acceptAny }) };
  return cached.store;
}

/**
 * Whether `certificateDer` (the signer's, as verified) chains to a trusted authority and was valid
 * at `signedAt`, through the intermediate CAs the signed document carries in its KeyInfo.
 */
export function checkSignerTrust(
  env: TrustEnv,
  certificateDer: Uint8Array,
  signedAt: Date,
  signedXml: string,
): Promise<TrustResult> {
  const links = keyInfoCertificates(signedXml).filter((der) => !sameBytes(der, certificateDer));
  return checkCertificateTrust(signerTrustStore(env), certificateDer, signedAt, links);
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);
