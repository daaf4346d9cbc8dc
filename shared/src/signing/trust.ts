// Whether a signer's certificate was issued by a certification authority we trust. DGII only admits
// certificates of INDOTEL-accredited authorities; a signature proves nothing about who signed
// unless its certificate chains to one of them. The trust store is a configured list of PEM
// certificates (the accredited authorities' issuing CAs, or the sandbox's demo CA locally): any
// certificate in it is an anchor. "Accept any" exists only for tests and is said explicitly.
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { fromBase64 } from "./base64.ts";

export interface TrustStore {
  /** Trust anchors (parsed once); empty with acceptAny false trusts nothing. */
  anchors: readonly pkijs.Certificate[];
  /** Every certificate passes the chain check (tests only; never in production). */
  acceptAny: boolean;
}

export type TrustResult =
  | { ok: true; anchor: string | null }
  | { ok: false; reason: "untrusted_issuer" | "certificate_not_valid" | "not_a_ca" | "malformed"; message: string };

const BASIC_CONSTRAINTS = "2.5.29.19";
const KEY_USAGE = "2.5.29.15";
/** RSA PKCS#1 v1.5 signature algorithms an issuing CA may use, by OID. */
const RSA_HASHES: Record<string, string> = {
  "1.2.840.113549.1.1.11": "SHA-256",
  "1.2.840.113549.1.1.12": "SHA-384",
  "1.2.840.113549.1.1.13": "SHA-512",
};
const MAX_CHAIN = 5;

function parse(der: Uint8Array): pkijs.Certificate {
  const asn = asn1js.fromBER(der);
  if (asn.offset === -1) throw new Error(`Not a DER certificate: ${asn.result.error}`);
  return new pkijs.Certificate({ schema: asn.result });
}

/** Every certificate in a PEM text (one or more BEGIN/END CERTIFICATE blocks). */
export function certificatesFromPem(pem: string): Uint8Array[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => {
    const der = fromBase64(block.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""));
    if (!der?.length) throw new Error("A PEM certificate block is not base64");
    return der;
  });
}

/**
 * The certificates in the KeyInfo of a document's (enveloped, last) signature, the signer's first:
 * a sender may add the CAs between its certificate and an accredited authority. They are read as
 * links for the chain, never trusted by themselves. Text that is not base64 is skipped.
 */
export function keyInfoCertificates(xml: string): Uint8Array[] {
  const start = [...xml.matchAll(/<(?:\w+:)?KeyInfo[\s>]/g)].at(-1)?.index;
  if (start === undefined) return [];
  const end = xml.indexOf("KeyInfo>", start + 9);
  const keyInfo = xml.slice(start, end < 0 ? undefined : end);
  const certificates: Uint8Array[] = [];
  for (const [, text] of keyInfo.matchAll(/<(?:\w+:)?X509Certificate>([^<]*)<\/(?:\w+:)?X509Certificate>/g)) {
    const der = fromBase64((text ?? "").replace(/\s+/g, ""));
    if (der?.length) certificates.push(der);
  }
  return certificates;
}

/** A trust store from configured PEM text; throws on a block that is not a certificate. */
export function trustStoreFromPem(pem: string, options: { acceptAny?: boolean } = {}): TrustStore {
  return { anchors: certificatesFromPem(pem).map(parse), acceptAny: options.acceptAny ?? false };
}

function extension(cert: pkijs.Certificate, oid: string): pkijs.Extension | undefined {
  return cert.extensions?.find((e) => e.extnID === oid);
}

function isCa(cert: pkijs.Certificate): boolean {
  const parsed = extension(cert, BASIC_CONSTRAINTS)?.parsedValue as pkijs.BasicConstraints | undefined;
  if (!parsed?.cA) return false;
  const usage = extension(cert, KEY_USAGE)?.parsedValue as asn1js.BitString | undefined;
  // keyCertSign is bit 5 (0x04 of the first byte); absent keyUsage allows every use.
  return !usage || ((usage.valueBlock.valueHexView[0] ?? 0) & 0x04) !== 0;
}

const validAt = (cert: pkijs.Certificate, at: Date) => cert.notBefore.value <= at && at <= cert.notAfter.value;
const nameOf = (cert: pkijs.Certificate) =>
  cert.subject.typesAndValues.map((tv) => String(tv.value.valueBlock.value)).join(", ");

/** True when `issuer`'s key made `cert`'s signature. */
async function signedBy(cert: pkijs.Certificate, issuer: pkijs.Certificate): Promise<boolean> {
  const hash = RSA_HASHES[cert.signatureAlgorithm.algorithmId];
  if (!hash || issuer.subjectPublicKeyInfo.algorithm.algorithmId !== "1.2.840.113549.1.1.1") return false;
  const key = await crypto.subtle.importKey(
    "spki",
    issuer.subjectPublicKeyInfo.toSchema().toBER(false),
    { name: "RSASSA-PKCS1-v1_5", hash },
    false,
    ["verify"],
  );
  return crypto.subtle.verify(
    "RSASSA-PKCS1-v1_5",
    key,
    new Uint8Array(cert.signatureValue.valueBlock.valueHexView),
    new Uint8Array(cert.tbsView),
  );
}

/**
 * Checks that `leafDer` chains to an anchor of `store`, every link valid at `at` (the signing
 * time). `intermediates` are other certificates the sender supplied (KeyInfo); they are links,
 * never anchors.
 */
export async function checkCertificateTrust(
  store: TrustStore,
  leafDer: Uint8Array,
  at: Date,
  intermediates: Uint8Array[] = [],
): Promise<TrustResult> {
  let current: pkijs.Certificate;
  let links: pkijs.Certificate[];
  try {
    current = parse(leafDer);
    links = intermediates.map(parse);
  } catch (error) {
    return { ok: false, reason: "malformed", message: `Unreadable certificate: ${(error as Error).message}` };
  }
  if (!validAt(current, at)) {
    return {
      ok: false,
      reason: "certificate_not_valid",
      message: `The signing certificate was not valid at ${at.toISOString()}`,
    };
  }
  if (store.acceptAny) return { ok: true, anchor: null };
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    for (const anchor of store.anchors) {
      if (!current.issuer.isEqual(anchor.subject) || !(await signedBy(current, anchor))) continue;
      if (!isCa(anchor))
        return { ok: false, reason: "not_a_ca", message: `${nameOf(anchor)} is not a certification authority` };
      if (!validAt(anchor, at)) {
        return {
          ok: false,
          reason: "certificate_not_valid",
          message: `The authority ${nameOf(anchor)} was not valid at ${at.toISOString()}`,
        };
      }
      return { ok: true, anchor: nameOf(anchor) };
    }
    const next = [];
    for (const link of links)
      if (current.issuer.isEqual(link.subject) && (await signedBy(current, link))) next.push(link);
    const link = next.find((l) => isCa(l) && validAt(l, at));
    if (!link) break;
    current = link;
  }
  return {
    ok: false,
    reason: "untrusted_issuer",
    message: `The signing certificate (issued by ${current.issuer.typesAndValues.map((tv) => String(tv.value.valueBlock.value)).join(", ")}) does not chain to an accredited certification authority`,
  };
}
