// Test identities generated on the fly: RSA-2048 certificates with a DGII-like subject (C=DO,
// serialNumber carrying an RNC, the certificate serial itself the RNC digits), issued by the
// sandbox's demo CA (dgii-sandbox/demo-ca) unless a test asks for a self-signed one, and .p12
// files in the legacy (3DES/RC2, node-forge or `openssl -legacy`) and modern (AES-256/PBKDF2,
// OpenSSL 3 defaults) forms. No real person's key is ever involved.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";

const DEMO_CA_DIR = join(import.meta.dirname, "../../../dgii-sandbox/demo-ca");
/** The demo CA's certificate: the trust anchor of the local default and of the tests. */
export const DEMO_CA_CERTIFICATE_PEM = readFileSync(join(DEMO_CA_DIR, "demo-ca.cert.pem"), "utf8");

export interface TestIdentity {
  rnc: string;
  commonName: string;
  /** Extractable, so tests can hand it to other tools; production keys are not. */
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  pkcs8: Uint8Array<ArrayBuffer>;
  certificateDer: Uint8Array<ArrayBuffer>;
  certificatePem: string;
  privateKeyPem: string;
}

export interface IdentityOptions {
  rnc?: string;
  commonName?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Who signs the certificate: the demo CA (default), the identity itself, or another test CA. */
  issuer?: "demo-ca" | "self" | { certificatePem: string; privateKeyPem: string };
  /** Make a CA certificate (basicConstraints cA, keyCertSign), to issue other test identities. */
  ca?: boolean;
}

const RSA = {
  name: "RSASSA-PKCS1-v1_5",
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
} as const;

const toBinary = (bytes: Uint8Array) => forge.util.binary.raw.encode(bytes);
const fromBinary = (binary: string) => new Uint8Array(forge.util.binary.raw.decode(binary));

export async function createTestIdentity(options: IdentityOptions = {}): Promise<TestIdentity> {
  const rnc = options.rnc ?? "131880738";
  const commonName = options.commonName ?? "EMPRESA DE PRUEBA SRL";
  const pair = await crypto.subtle.generateKey(RSA, true, ["sign", "verify"]);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const forgeKey = forge.pki.privateKeyFromAsn1(forge.asn1.fromDer(toBinary(pkcs8))) as forge.pki.rsa.PrivateKey;

  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  cert.serialNumber = rnc; // hex digits: the serial reads as the RNC
  cert.validity.notBefore = options.notBefore ?? new Date("2026-01-01T00:00:00Z");
  cert.validity.notAfter = options.notAfter ?? new Date("2028-01-01T00:00:00Z");
  const subject = [
    { shortName: "CN", value: commonName },
    { name: "serialNumber", value: `RNC-${rnc}` },
    { shortName: "O", value: commonName },
    { shortName: "C", value: "DO" },
  ];
  cert.setSubject(subject);
  const demoCa = () => ({
    certificatePem: DEMO_CA_CERTIFICATE_PEM,
    privateKeyPem: readFileSync(join(DEMO_CA_DIR, "demo-ca.key.pem"), "utf8"),
  });
  const issuer =
    options.issuer === "self"
      ? undefined
      : options.issuer === undefined || options.issuer === "demo-ca"
        ? demoCa()
        : options.issuer;
  cert.setIssuer(issuer ? forge.pki.certificateFromPem(issuer.certificatePem).subject.attributes : subject);
  cert.setExtensions(
    options.ca
      ? [
          { name: "basicConstraints", cA: true, critical: true },
          { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
        ]
      : [
          { name: "basicConstraints", cA: false },
          { name: "keyUsage", digitalSignature: true, nonRepudiation: true },
        ],
  );
  cert.sign(issuer ? forge.pki.privateKeyFromPem(issuer.privateKeyPem) : forgeKey, forge.md.sha256.create());
  const certificateDer = fromBinary(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes());

  return {
    rnc,
    commonName,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    pkcs8,
    certificateDer,
    certificatePem: forge.pki.certificateToPem(cert),
    privateKeyPem: forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(forgeKey))),
  };
}

let shared: Promise<TestIdentity> | undefined;
/** One identity per test process: RSA key generation is the slow part. */
export function testIdentity(): Promise<TestIdentity> {
  shared ??= createTestIdentity();
  return shared;
}

/** A .p12 written by node-forge: key in pbeWithSHAAnd3-KeyTripleDES-CBC, SHA-1 MAC. */
export function forgeP12(identity: TestIdentity, password: string, algorithm: "3des" | "aes256" = "3des"): Uint8Array {
  const key = forge.pki.privateKeyFromAsn1(forge.asn1.fromDer(toBinary(identity.pkcs8)));
  const cert = forge.pki.certificateFromPem(identity.certificatePem);
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm, friendlyName: identity.commonName });
  return fromBinary(forge.asn1.toDer(asn1).getBytes());
}

export type OpensslP12Kind =
  /** OpenSSL 3 defaults: AES-256-CBC with PBKDF2/HMAC-SHA256, SHA-256 MAC. */
  | "aes"
  /** What older Windows/OpenSSL exports look like: RC2-40 certificates, 3DES key, SHA-1 MAC. */
  | "legacy-rc2";

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "ecf-p12-"));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A .p12 written by the openssl command line, optionally with extra chain certificates (PEM). */
export function opensslP12(
  identity: TestIdentity,
  password: string,
  kind: OpensslP12Kind,
  chainPem: string[] = [],
): Uint8Array {
  return withTempDir((dir) => {
    writeFileSync(join(dir, "key.pem"), identity.privateKeyPem);
    writeFileSync(join(dir, "cert.pem"), identity.certificatePem);
    const args = [
      "pkcs12",
      "-export",
      "-inkey",
      join(dir, "key.pem"),
      "-in",
      join(dir, "cert.pem"),
      "-passout",
      `pass:${password}`,
      "-out",
      join(dir, "out.p12"),
    ];
    if (chainPem.length) {
      writeFileSync(join(dir, "chain.pem"), chainPem.join("\n"));
      args.push("-certfile", join(dir, "chain.pem"));
    }
    if (kind === "legacy-rc2") args.push("-legacy");
    execFileSync("openssl", args, { stdio: "pipe" });
    return new Uint8Array(readFileSync(join(dir, "out.p12")));
  });
}

/** A .p12 holding an EC P-256 key and certificate: something readPkcs12 must refuse. */
export function opensslEcP12(password: string): Uint8Array {
  return withTempDir((dir) => {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-subj",
        "/CN=EC TEST/serialNumber=RNC-131880738/C=DO",
        "-days",
        "30",
      ],
      { stdio: "pipe" },
    );
    execFileSync(
      "openssl",
      ["pkcs12", "-export", "-inkey", key, "-in", cert, "-passout", `pass:${password}`, "-out", join(dir, "out.p12")],
      { stdio: "pipe" },
    );
    return new Uint8Array(readFileSync(join(dir, "out.p12")));
  });
}

/** A .p12 with only a certificate, no key. */
export function opensslCertOnlyP12(identity: TestIdentity, password: string): Uint8Array {
  return withTempDir((dir) => {
    writeFileSync(join(dir, "cert.pem"), identity.certificatePem);
    execFileSync(
      "openssl",
      [
        "pkcs12",
        "-export",
        "-nokeys",
        "-in",
        join(dir, "cert.pem"),
        "-passout",
        `pass:${password}`,
        "-out",
        join(dir, "out.p12"),
      ],
      { stdio: "pipe" },
    );
    return new Uint8Array(readFileSync(join(dir, "out.p12")));
  });
}

/** A .p12 with only a key, no certificate. */
export function opensslKeyOnlyP12(identity: TestIdentity, password: string): Uint8Array {
  return withTempDir((dir) => {
    writeFileSync(join(dir, "key.pem"), identity.privateKeyPem);
    execFileSync(
      "openssl",
      [
        "pkcs12",
        "-export",
        "-nocerts",
        "-inkey",
        join(dir, "key.pem"),
        "-passout",
        `pass:${password}`,
        "-out",
        join(dir, "out.p12"),
      ],
      { stdio: "pipe" },
    );
    return new Uint8Array(readFileSync(join(dir, "out.p12")));
  });
}

export interface XmlsecResult {
  ok: boolean;
  output: string;
}

/**
 * Verifies a signed document with xmlsec1 (an independent XMLDSig implementation), trusting only
 * the given certificate: the X509Certificate in KeyInfo must be that certificate (its issuing demo
 * CA is loaded too, so OpenSSL can build the chain of a CA-issued test certificate).
 */
export function xmlsecVerify(signedXml: string, trustedCertificatePem: string): XmlsecResult {
  const body = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const inKeyInfo = [...signedXml.matchAll(/<(?:\w+:)?X509Certificate>([^<]*)</g)].map((m) => body(m[1]!));
  if (!inKeyInfo.includes(body(trustedCertificatePem)))
    return { ok: false, output: "KeyInfo does not hold the trusted certificate" };
  return withTempDir((dir) => {
    writeFileSync(join(dir, "doc.xml"), signedXml);
    writeFileSync(join(dir, "trusted.pem"), trustedCertificatePem);
    writeFileSync(join(dir, "ca.pem"), DEMO_CA_CERTIFICATE_PEM);
    const trusted = ["--trusted-pem", join(dir, "ca.pem"), "--trusted-pem", join(dir, "trusted.pem")];
    try {
      const output = execFileSync(
        "xmlsec1",
        ["--verify", ...trusted, "--enabled-key-data", "x509", join(dir, "doc.xml")],
        {
          stdio: "pipe",
          encoding: "utf8",
        },
      );
      return { ok: true, output };
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
    }
  });
}

/**
 * Signs with xmlsec1 (an independent signer): `template` holds a Signature template with empty
 * DigestValue/SignatureValue/X509Certificate, in whatever prefix the caller wants to test.
 */
export function xmlsecSign(template: string, identity: TestIdentity): string {
  return withTempDir((dir) => {
    writeFileSync(join(dir, "doc.xml"), template);
    writeFileSync(join(dir, "key.pem"), identity.privateKeyPem);
    writeFileSync(join(dir, "cert.pem"), identity.certificatePem);
    return execFileSync(
      "xmlsec1",
      ["--sign", "--privkey-pem", `${join(dir, "key.pem")},${join(dir, "cert.pem")}`, join(dir, "doc.xml")],
      { encoding: "utf8", stdio: "pipe" },
    );
  });
}
