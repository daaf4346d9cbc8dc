// The fast path of verifyXml, the mirror of the fast signer: a document whose Signature is
// byte for byte the shape signEcfXml writes (DGII's own shape too), as the root's last child, and
// whose rest is canonical (checkCanonical). Then the enveloped transform plus C14N of the document
// is exactly the root's bytes without the Signature, and the canonical SignedInfo is the fast
// signer's template around the DigestValue: one SHA-256 and one RSA verification, no DOM.
// Anything else, and any failure, returns null: the full path decides, and names the reason.
import { fromBase64 } from "./base64.ts";
import { checkCanonical } from "./canonical-check.ts";
import { certificatePublicKey, describeCertificate, type CertificateInfo } from "./certificate.ts";
import { SIGNATURE_HEAD, SIGNED_INFO_HEAD, SIGNED_INFO_TAIL } from "./fast-signer.ts";
import { RSA_PKCS1_SHA256 } from "./profile.ts";

const encoder = new TextEncoder();
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const AFTER_DIGEST = `${SIGNED_INFO_TAIL}<SignatureValue>`;
const AFTER_SIGNATURE_VALUE = "</SignatureValue><KeyInfo><X509Data><X509Certificate>";
const SIGNATURE_END = "</X509Certificate></X509Data></KeyInfo></Signature>";

/** Certificates seen lately (a sender signs many documents with one): parsing one costs more than the RSA check. */
const certificates = new Map<string, Promise<{ certificate: CertificateInfo; key: CryptoKey }>>();
const CERTIFICATES_KEPT = 64;

function signer(base64: string, der: Uint8Array): Promise<{ certificate: CertificateInfo; key: CryptoKey }> {
  let entry = certificates.get(base64);
  if (!entry) {
    entry = certificatePublicKey(der).then((key) => ({ certificate: describeCertificate(der), key }));
    // A failed parse is not kept: the full path reports it.
    entry.catch(() => certificates.delete(base64));
    if (certificates.size >= CERTIFICATES_KEPT) certificates.delete(certificates.keys().next().value!);
    certificates.set(base64, entry);
  }
  return entry;
}

/** The signer's certificate when the fast path proves the signature; null when the full path must decide. */
export async function fastVerify(xml: string): Promise<CertificateInfo | null> {
  const start = xml.indexOf(SIGNATURE_HEAD);
  if (start < 0 || xml.indexOf(SIGNATURE_HEAD, start + 1) >= 0) return null;
  // DigestValue, SignatureValue and X509Certificate, each base64 between fixed markup.
  const digestFrom = start + SIGNATURE_HEAD.length;
  const digestTo = xml.indexOf(AFTER_DIGEST, digestFrom);
  if (digestTo < 0) return null;
  const valueFrom = digestTo + AFTER_DIGEST.length;
  const valueTo = xml.indexOf(AFTER_SIGNATURE_VALUE, valueFrom);
  if (valueTo < 0) return null;
  const certificateFrom = valueTo + AFTER_SIGNATURE_VALUE.length;
  const certificateTo = xml.indexOf(SIGNATURE_END, certificateFrom);
  if (certificateTo < 0) return null;
  const digestValue = xml.slice(digestFrom, digestTo);
  const signatureValue = xml.slice(valueFrom, valueTo);
  const certificateBase64 = xml.slice(certificateFrom, certificateTo);
  if (!BASE64.test(digestValue) || !BASE64.test(signatureValue) || !BASE64.test(certificateBase64)) return null;

  // The document without its Signature must be canonical, and the Signature its root's last child.
  const end = certificateTo + SIGNATURE_END.length;
  const unsigned = xml.slice(0, start) + xml.slice(end);
  const bytes = encoder.encode(unsigned);
  let root;
  try {
    root = checkCanonical(unsigned, bytes);
  } catch {
    return null;
  }
  // Everything from the Signature on is ASCII, so byte and string offsets agree from the end.
  if (root.closeTag !== bytes.length - (xml.length - end)) return null;

  const digest = fromBase64(digestValue);
  const signature = fromBase64(signatureValue);
  const der = fromBase64(certificateBase64);
  if (!digest || !signature || !der?.length) return null;
  const actual = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.subarray(root.start, root.end)));
  if (actual.length !== digest.length || actual.some((b, i) => b !== digest[i])) return null;
  let found;
  try {
    found = await signer(certificateBase64, der);
  } catch {
    return null;
  }
  const signedInfo = encoder.encode(SIGNED_INFO_HEAD + digestValue + SIGNED_INFO_TAIL);
  return (await crypto.subtle.verify(RSA_PKCS1_SHA256, found.key, signature as Uint8Array<ArrayBuffer>, signedInfo))
    ? found.certificate
    : null;
}
