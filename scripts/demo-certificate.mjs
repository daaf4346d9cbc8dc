// Generates an RSA-2048 test certificate issued by the sandbox's demo CA (dgii-sandbox/demo-ca), as
// a legacy (3DES) PKCS#12 like the files DGII's certification authorities hand out. The receiving
// side trusts only certificates that chain to a configured CA; locally that is the demo CA.
// For local demos and tests only: never a real person's key.
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import forge from "node-forge";

const DEMO_CA_DIR = join(import.meta.dirname, "../dgii-sandbox/demo-ca");

/** The demo CA's certificate (PEM), what a local trust store holds. */
export const DEMO_CA_CERTIFICATE_PEM = readFileSync(join(DEMO_CA_DIR, "demo-ca.cert.pem"), "utf8");

/** The demo CA's certificate and key, to issue demo certificates with. */
export function demoCertificateAuthority() {
  return {
    certificate: forge.pki.certificateFromPem(DEMO_CA_CERTIFICATE_PEM),
    privateKey: forge.pki.privateKeyFromPem(readFileSync(join(DEMO_CA_DIR, "demo-ca.key.pem"), "utf8")),
  };
}

/** True when a DER/PEM certificate was issued by the demo CA (seed replaces older self-signed ones). */
export function issuedByDemoCa(certificatePem) {
  const ca = demoCertificateAuthority().certificate;
  try {
    return ca.verify(forge.pki.certificateFromPem(certificatePem));
  } catch {
    return false;
  }
}

export function generateTestP12({ commonName, serialNumber, password, notAfter, legacy = true }) {
  // Node's native RSA key generation (node-forge's pure-JS one takes seconds); forge does the rest.
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey);
  const keys = { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
  const ca = demoCertificateAuthority();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = forge.util.bytesToHex(forge.random.getBytesSync(8)).replace(/^[89a-f]/, "1");
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 86_400_000);
  cert.validity.notAfter = notAfter ?? new Date(now.getTime() + 365 * 86_400_000);
  cert.setSubject([
    { name: "commonName", value: commonName },
    { name: "countryName", value: "DO" },
    { name: "organizationName", value: "ecf-edge demo" },
    { type: "2.5.4.5", value: serialNumber },
  ]);
  cert.setIssuer(ca.certificate.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, nonRepudiation: true },
  ]);
  cert.sign(ca.privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(keys.privateKey, [cert], password, { algorithm: legacy ? "3des" : "aes256" });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), "binary");
}

/** The certificate (PEM) inside a .p12 generateTestP12 made: what PUT /__sandbox/signers registers. */
export function certificatePemOfP12(p12, password) {
  const parsed = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(Buffer.from(p12).toString("binary")), password);
  const bag = parsed.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag]?.[0];
  if (!bag?.cert) throw new Error("The .p12 holds no certificate");
  return forge.pki.certificateToPem(bag.cert).replace(/\r\n/g, "\n");
}
