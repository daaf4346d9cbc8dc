// The fast path for documents our serializer produced: they are canonical by construction, so
// the digest is taken over the emitted bytes and SignedInfo is written directly in canonical form.
// No DOM: the cost is one UTF-8 encoding (into a reused buffer), one linear check with the SHA-256
// beside it, and one RSA signature.
import { toBase64 } from "./base64.ts";
import { checkRootElement, rootStart } from "./canonical-check.ts";
import { withUtf8 } from "./utf8-scratch.ts";
import { C14N_10, ENVELOPED_SIGNATURE, RSA_PKCS1_SHA256, RSA_SHA256, SHA256, XMLDSIG_NS } from "./profile.ts";

const encoder = new TextEncoder();

// SignedInfo as C14N 1.0 renders it once it sits inside an unprefixed Signature in a document
// without namespaces: the default namespace is inherited and empty elements get end tags.
export const SIGNED_INFO_HEAD =
  `<SignedInfo xmlns="${XMLDSIG_NS}">` +
  `<CanonicalizationMethod Algorithm="${C14N_10}"></CanonicalizationMethod>` +
  `<SignatureMethod Algorithm="${RSA_SHA256}"></SignatureMethod>` +
  `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED_SIGNATURE}"></Transform></Transforms>` +
  `<DigestMethod Algorithm="${SHA256}"></DigestMethod><DigestValue>`;
export const SIGNED_INFO_TAIL = `</DigestValue></Reference></SignedInfo>`;

// The same SignedInfo as it is written into the document, in the shape DGII's own documents have.
export const SIGNATURE_HEAD =
  `<Signature xmlns="${XMLDSIG_NS}"><SignedInfo>` +
  `<CanonicalizationMethod Algorithm="${C14N_10}"/>` +
  `<SignatureMethod Algorithm="${RSA_SHA256}"/>` +
  `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED_SIGNATURE}"/></Transforms>` +
  `<DigestMethod Algorithm="${SHA256}"/><DigestValue>`;

const certificateBase64 = new WeakMap<Uint8Array, string>();

/**
 * Signs a document our serializer produced (e-CF, RFCE, ARECF, ACECF, ANECF) with the DGII
 * profile and returns it with the Signature appended as the root's last child. Throws
 * NotCanonicalError for input that is not canonical in the sense this path relies on (use
 * `signXml` for such documents) and TypeError for a key that is not RSASSA-PKCS1-v1_5/SHA-256.
 */
export async function signEcfXml(xml: string, key: CryptoKey, certificateDer: Uint8Array): Promise<string> {
  assertSigningKey(key);
  const { digestValue, tail } = await withUtf8(xml, async (bytes) => {
    // Only whitespace may follow the root, so its span is known before the check proves it: the
    // SHA-256 starts first (WebCrypto copies the bytes now, and Node and Chromium hash on another
    // thread) and runs while the check does.
    const start = rootStart(xml, bytes);
    let end = bytes.length;
    while (end > start && isXmlWhitespace(bytes[end - 1]!)) end--;
    const digesting = crypto.subtle.digest("SHA-256", bytes.subarray(start, end));
    digesting.catch(() => undefined); // the check's refusal is the error to report, not this
    const root = checkRootElement(bytes, start);
    const digest =
      root.end === end ? await digesting : await crypto.subtle.digest("SHA-256", bytes.subarray(start, root.end));
    return { digestValue: toBase64(new Uint8Array(digest)), tail: bytes.length - root.closeTag };
  });
  const signedInfo = encoder.encode(SIGNED_INFO_HEAD + digestValue + SIGNED_INFO_TAIL);
  const signatureValue = toBase64(new Uint8Array(await crypto.subtle.sign(RSA_PKCS1_SHA256, key, signedInfo)));

  let certificate = certificateBase64.get(certificateDer);
  if (certificate === undefined) {
    certificate = toBase64(certificateDer);
    certificateBase64.set(certificateDer, certificate);
  }
  const signature =
    SIGNATURE_HEAD +
    digestValue +
    SIGNED_INFO_TAIL +
    `<SignatureValue>${signatureValue}</SignatureValue>` +
    `<KeyInfo><X509Data><X509Certificate>${certificate}</X509Certificate></X509Data></KeyInfo></Signature>`;

  // Everything from the root end tag on is ASCII, so its byte length equals its string length.
  const at = xml.length - tail;
  return xml.slice(0, at) + signature + xml.slice(at);
}

const isXmlWhitespace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

function assertSigningKey(key: CryptoKey): void {
  const algorithm = key.algorithm as RsaHashedKeyAlgorithm;
  if (
    key.type !== "private" ||
    algorithm.name !== "RSASSA-PKCS1-v1_5" ||
    algorithm.hash?.name !== "SHA-256" ||
    !key.usages.includes("sign")
  ) {
    throw new TypeError("The signing key must be an RSASSA-PKCS1-v1_5 SHA-256 private key with the 'sign' usage");
  }
}
