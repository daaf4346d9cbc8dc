// Who may sign for an RNC. DGII accepts an e-CF, ACECF or ANECF only from a certificate whose
// holder the RNC delegated ("Firmante del comprobante fiscal electrónico no corresponde a un
// delegado autorizado para hacer transacciones para el RNC Emisor", descripcion-tecnica), and
// answers consultatrackids only to a token of such a delegate. The sandbox keeps, per RNC, the
// certificates registered with PUT /__sandbox/signers or the `signers` start option (by SHA-256 of
// their DER). As at DGII, an RNC takes no signature or token but its delegates', and an RNC that
// registered no one takes none at all. Only the `lenientSigners` option (off by default, never
// DGII's behaviour) lets an RNC with no registered signer through unchecked. Journaled with the
// rest of the state, so a restarted sandbox still knows them.
import { createHash } from "node:crypto";
import type { SignerCertificate } from "./checks.ts";
import type { SandboxContext } from "./context.ts";

export const NOT_A_DELEGATE = (rnc: string) =>
  `Firmante del comprobante fiscal electrónico no corresponde a un delegado autorizado para hacer transacciones para el RNC ${rnc}.`;

export const TRACKIDS_NOT_A_DELEGATE =
  "El RNC del token no está autorizado a consultar el trackid de este e-NCF, favor verificar que se encuentre delegado por el emisor y volver a intentarlo.";

const lenient = new WeakSet<object>();

/**
 * Sets up a new sandbox's registry: `signers` (RNC -> PEM certificates) registered at start, and the
 * lenient mode (an RNC with no registered signer is not checked) only when asked for by name.
 */
export function initSigners(
  ctx: SandboxContext,
  options: { signers?: Record<string, string[]>; lenientSigners?: boolean },
): void {
  if (options.lenientSigners) lenient.add(ctx.state);
  for (const [rnc, pems] of Object.entries(options.signers ?? {})) {
    const ders = pems.map(certificatesOfPem);
    if (ders.some((d) => !d?.length)) throw new Error(`signers of ${rnc}: every entry must be a PEM certificate`);
    setSigners(
      ctx,
      rnc,
      ders.flatMap((d) => d!.map(fingerprintOfDer)),
    );
  }
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

/** Replaces the RNC's signers (an empty list: no one may sign for it, unless the sandbox is lenient). */
export function setSigners(ctx: SandboxContext, rnc: string, fingerprints: string[]): void {
  ctx.state.record({ t: "signers", rnc, fingerprints: [...new Set(fingerprints)] });
}

export function listSigners(ctx: SandboxContext): Record<string, string[]> {
  return Object.fromEntries([...ctx.state.signers].filter(([, set]) => set.size).map(([rnc, set]) => [rnc, [...set]]));
}

/** True when `fingerprint` may act for `rnc`: registered for it (or, lenient only, the RNC registers no one). */
export function isDelegate(
  ctx: SandboxContext,
  rnc: string,
  certificate: Pick<SignerCertificate, "fingerprint"> | { fingerprint?: string },
): boolean {
  const registered = ctx.state.signers.get(rnc);
  if (!registered?.size) return lenient.has(ctx.state);
  return certificate.fingerprint !== undefined && registered.has(certificate.fingerprint);
}
