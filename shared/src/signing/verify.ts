// Verification of what we receive (e-CF from other issuers, ARECF/ACECF, DGII responses):
// documents in the fast signer's shape are proved by fast-verify.ts; for the rest, xmldsigjs does
// the C14N and the cryptography, we enforce the DGII profile around it and say precisely why a
// signature is refused.
import { fromBase64 } from "./base64.ts";
import { CertificateError, certificatePublicKey, describeCertificate, type CertificateInfo } from "./certificate.ts";
import { fastVerify } from "./fast-verify.ts";
import { C14N_10, ENVELOPED_SIGNATURE, RSA_SHA256, SHA256, XMLDSIG_NS } from "./profile.ts";
import { dropWhitespaceText, parseXml, UnsafeXmlError } from "./xml-dom.ts";
import { xmldsig } from "./xmldsig-setup.ts";

export type VerifyFailureReason =
  | "digest_mismatch"
  | "bad_signature_value"
  | "unsupported_algorithm"
  | "missing_key_info"
  | "multiple_signatures"
  | "no_signature"
  | "malformed";

export type VerifyResult =
  | {
      ok: true;
      /** The certificate in KeyInfo whose key made the signature (not checked against any CA). */
      certificate: CertificateInfo;
      /** True when the signature only holds with whitespace-only text dropped, as DGII verifies. */
      whitespaceNormalized: boolean;
    }
  | { ok: false; reason: VerifyFailureReason; message: string };

class Refusal extends Error {
  constructor(
    readonly reason: VerifyFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** Exposes xmldsigjs's two verification steps separately, so a failure can be named. */
class CheckedSignedXml extends xmldsig.SignedXml {
  /** Consumes the document: the enveloped transform detaches the Signature from it. */
  async digestsMatch(root: Element): Promise<boolean> {
    try {
      // No defensive clone: cloning with xmldom costs a fifth of a verification, and every
      // attempt gets a document of its own.
      return await this.ValidateReferences(root);
    } catch (error) {
      // xmldsigjs throws XmlError, which is not an Error subclass.
      if (/Invalid digest/.test(String((error as { message?: unknown } | null)?.message))) return false;
      throw error;
    }
  }
  signatureValueMatches(key: CryptoKey): Promise<boolean> {
    return this.ValidateSignatureValue([key]);
  }
}

const TRANSFORMS_ALLOWED = new Set([ENVELOPED_SIGNATURE, C14N_10]);

function children(parent: Element, localName: string): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    const el = n as Element;
    if (n.nodeType === 1 && el.localName === localName && el.namespaceURI === XMLDSIG_NS) out.push(el);
  }
  return out;
}

function one(parent: Element, localName: string): Element {
  const found = children(parent, localName);
  if (found.length !== 1)
    throw new Refusal("malformed", `Expected one ${localName} in ${parent.localName}, found ${found.length}`);
  return found[0]!;
}

function requireAlgorithm(el: Element, expected: string): void {
  const algorithm = el.getAttribute("Algorithm") ?? "";
  if (algorithm !== expected)
    throw new Refusal("unsupported_algorithm", `${el.localName} ${algorithm || "(none)"} is not ${expected}`);
}

function findSignature(doc: Document): Element {
  const found = doc.getElementsByTagNameNS(XMLDSIG_NS, "Signature");
  if (found.length === 0) throw new Refusal("no_signature", "The document has no XML signature");
  if (found.length > 1)
    throw new Refusal("multiple_signatures", `The document has ${found.length} XML signatures; the profile allows one`);
  const signature = found[0]!;
  if (signature.parentNode !== doc.documentElement)
    throw new Refusal("malformed", "The Signature must be a child of the root element (enveloped)");
  return signature;
}

/** Checks the profile and returns the signer's certificate bytes. */
function checkProfile(signature: Element): Uint8Array {
  const signedInfo = one(signature, "SignedInfo");
  requireAlgorithm(one(signedInfo, "CanonicalizationMethod"), C14N_10);
  requireAlgorithm(one(signedInfo, "SignatureMethod"), RSA_SHA256);
  const references = children(signedInfo, "Reference");
  if (references.length !== 1) throw new Refusal("malformed", `Expected one Reference, found ${references.length}`);
  const reference = references[0]!;
  if (reference.getAttribute("URI") !== "")
    throw new Refusal("malformed", `Reference URI must be "" (the whole document)`);
  const transforms = children(reference, "Transforms").flatMap((t) => children(t, "Transform"));
  const algorithms = transforms.map((t) => t.getAttribute("Algorithm") ?? "");
  const unknown = algorithms.find((a) => !TRANSFORMS_ALLOWED.has(a));
  if (unknown !== undefined)
    throw new Refusal("unsupported_algorithm", `Transform ${unknown || "(none)"} is not allowed`);
  if (!algorithms.includes(ENVELOPED_SIGNATURE))
    throw new Refusal("unsupported_algorithm", "The Reference lacks the enveloped-signature transform");
  requireAlgorithm(one(reference, "DigestMethod"), SHA256);

  const signatureValue = one(signature, "SignatureValue");
  if (!fromBase64(signatureValue.textContent ?? "")?.length)
    throw new Refusal("bad_signature_value", "SignatureValue is not base64");

  const certificate = children(signature, "KeyInfo")
    .flatMap((k) => children(k, "X509Data"))
    .flatMap((d) => children(d, "X509Certificate"))[0];
  if (!certificate) throw new Refusal("missing_key_info", "KeyInfo holds no X509Data/X509Certificate");
  const der = fromBase64(certificate.textContent ?? "");
  if (!der?.length) throw new Refusal("malformed", "X509Certificate is not base64");
  return der;
}

async function attempt(doc: Document, der: Uint8Array, key: CryptoKey): Promise<void> {
  const signed = new CheckedSignedXml(doc);
  try {
    signed.LoadXml(findSignature(doc));
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal("malformed", `Unreadable Signature: ${(error as Error).message}`);
  }
  if (!(await signed.digestsMatch(doc.documentElement)))
    throw new Refusal("digest_mismatch", "The document does not match the signed digest");
  if (!(await signed.signatureValueMatches(key))) {
    throw new Refusal(
      "bad_signature_value",
      `SignatureValue was not made by the key of the certificate in KeyInfo (${describeCertificate(der).subject})`,
    );
  }
}

/**
 * Verifies the enveloped XML signature of a document against the certificate in its KeyInfo.
 * The certificate is returned for the caller to judge (issuer, validity at the signing time);
 * this function does not check it against any CA.
 */
export async function verifyXml(xml: string): Promise<VerifyResult> {
  const fast = await fastVerify(xml);
  if (fast) return { ok: true, certificate: fast, whitespaceNormalized: false };
  return verifyXmlFully(xml);
}

/** verifyXml without the fast path: the DOM, C14N and xmldsigjs for every document (tests compare the two). */
export async function verifyXmlFully(xml: string): Promise<VerifyResult> {
  try {
    let doc: Document;
    try {
      doc = parseXml(xml);
    } catch (error) {
      throw new Refusal(
        "malformed",
        error instanceof UnsafeXmlError ? error.message : `Not well-formed XML: ${(error as Error).message}`,
      );
    }
    const der = checkProfile(findSignature(doc));
    let key: CryptoKey;
    let certificate: CertificateInfo;
    try {
      certificate = describeCertificate(der);
      key = await certificatePublicKey(der);
    } catch (error) {
      if (error instanceof CertificateError && /not RSA/.test(error.message))
        throw new Refusal("unsupported_algorithm", error.message);
      throw new Refusal("malformed", `Unreadable X509Certificate: ${(error as Error).message}`);
    }
    try {
      await attempt(doc, der, key);
      return { ok: true, certificate, whitespaceNormalized: false };
    } catch (error) {
      // Signed compact, shipped indented: verify as DGII does, without whitespace-only text.
      if (!(error instanceof Refusal)) throw error;
      const compact = parseXml(xml);
      if (!dropWhitespaceText(compact.documentElement)) throw error;
      try {
        await attempt(compact, der, key);
        return { ok: true, certificate, whitespaceNormalized: true };
      } catch {
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason, message: error.message };
    return { ok: false, reason: "malformed", message: (error as Error).message };
  }
}
