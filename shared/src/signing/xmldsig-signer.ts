// The general signer, for XML we did not build (the DGII seed with its namespace declarations,
// documents from other systems): xmldsigjs with the same DGII profile as the fast path.
import { toBase64 } from "./base64.ts";
import { XMLDSIG_NS } from "./profile.ts";
import { dropWhitespaceText, parseXml, xmlDeclaration } from "./xml-dom.ts";
import { xmldsig } from "./xmldsig-setup.ts";

/**
 * Signs any XML document with the DGII profile (enveloped, unprefixed, C14N 1.0, RSA-SHA256,
 * X509Certificate only). Whitespace-only text is removed first, so the signature holds whether the
 * verifier preserves whitespace or not (DGII's does not). Refuses DOCTYPE and signed input.
 */
export async function signXml(xml: string, key: CryptoKey, certificateDer: Uint8Array): Promise<string> {
  const doc = parseXml(xml);
  if (doc.getElementsByTagNameNS(XMLDSIG_NS, "Signature").length > 0)
    throw new Error("The document already has a Signature element");
  dropWhitespaceText(doc.documentElement);

  const signed = new xmldsig.SignedXml();
  await signed.Sign({ name: "RSASSA-PKCS1-v1_5" }, key, doc, {
    x509: [toBase64(certificateDer)],
    references: [{ hash: "SHA-256", transforms: ["enveloped"], uri: "" }],
  });
  // XMLSerializer writes a carriage return in text as is, and a parser would read it back as a
  // line feed; C14N's escape keeps the signed text intact.
  const body = signed.toString().replace(/\r/g, "&#xD;");
  return (xmlDeclaration(xml) ? `<?xml version="1.0" encoding="utf-8"?>` : "") + body;
}
