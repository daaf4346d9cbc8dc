// Who may sign for an RNC. DGII accepts an e-CF, ACECF or ANECF only from a certificate whose
// holder the RNC delegated ("Firmante del comprobante fiscal electrónico no corresponde a un
// delegado autorizado para hacer transacciones para el RNC Emisor", descripcion-tecnica), and
// answers consultatrackids only to a token of such a delegate. The sandbox keeps, per RNC, the
// certificates registered with PUT /__sandbox/signers (by SHA-256 of their DER): an RNC with
// registered signers takes no one else's signature or token; an RNC with none is not checked
// (the lenient default the tests' shared identity relies on). Kept in memory.
import { createHash } from "node:crypto";
import type { SignerCertificate } from "./checks.ts";
import type { SandboxContext } from "./context.ts";

export const NOT_A_DELEGATE = (rnc: string) =>
  `Firmante del comprobante fiscal electrónico no corresponde a un delegado autorizado para hacer transacciones para el RNC ${rnc}.`;

export const TRACKIDS_NOT_A_DELEGATE =
  "El RNC del token no está autorizado a consultar el trackid de este e-NCF, favor verificar que se encuentre delegado por el emisor y volver a intentarlo.";

const registries = new WeakMap<object, Map<string, Set<string>>>();

function registryOf(ctx: SandboxContext): Map<string, Set<string>> {
  let registry = registries.get(ctx.state);
  if (!registry) registries.set(ctx.state, (registry = new Map()));
  return registry;
}

export function fingerprintOfDer(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("hex");
}

/** The DER of each certificate in a PEM text; undefined when a block is not base64. */
export function certificatesOfPem(pem: string): Uint8Array[] | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const ders = blocks.map(
    (b) => new Uint8Array(Buffer.from(b.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64")),
  );
  return ders.every((d) => d.length > 0) ? ders : undefined;
}

/** Replaces the RNC's signers (an empty list: the RNC is no longer checked). */
export function setSigners(ctx: SandboxContext, rnc: string, fingerprints: string[]): void {
  if (fingerprints.length) registryOf(ctx).set(rnc, new Set(fingerprints));
  else registryOf(ctx).delete(rnc);
}

export function listSigners(ctx: SandboxContext): Record<string, string[]> {
  return Object.fromEntries([...registryOf(ctx)].map(([rnc, set]) => [rnc, [...set]]));
}

/** True when `fingerprint` may act for `rnc`: registered for it, or the RNC registers no one. */
export function isDelegate(
  ctx: SandboxContext,
  rnc: string,
  certificate: Pick<SignerCertificate, "fingerprint"> | { fingerprint?: string },
): boolean {
  const registered = registryOf(ctx).get(rnc);
  return !registered || (certificate.fingerprint !== undefined && registered.has(certificate.fingerprint));
}
