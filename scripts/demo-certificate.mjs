// Generates a self-signed RSA-2048 test certificate as a legacy (3DES) PKCS#12, like the files
// DGII's certification authorities hand out. For local demos and tests only: never a real person's key.
import { generateKeyPairSync } from "node:crypto";
import forge from "node-forge";

export function generateTestP12({ commonName, serialNumber, password, notAfter, legacy = true }) {
  // Node's native RSA key generation (node-forge's pure-JS one takes seconds); forge does the rest.
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey);
  const keys = { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = forge.util.bytesToHex(forge.random.getBytesSync(8)).replace(/^[89a-f]/, "1");
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 86_400_000);
  cert.validity.notAfter = notAfter ?? new Date(now.getTime() + 365 * 86_400_000);
  const attrs = [
    { name: "commonName", value: commonName },
    { name: "countryName", value: "DO" },
    { name: "organizationName", value: "ecf-edge demo" },
    { type: "2.5.4.5", value: serialNumber },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, nonRepudiation: true },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(keys.privateKey, [cert], password, { algorithm: legacy ? "3des" : "aes256" });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), "binary");
}
