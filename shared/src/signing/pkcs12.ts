// Reading the holder's .p12/.pfx once, at upload. Many DGII certificates are legacy PKCS#12
// (RC2-40 / 3DES, SHA-1 MAC) that WebCrypto and pkijs cannot open; node-forge (pure JS, runs in
// workerd) opens those and the modern AES-256/PBKDF2 ones alike. The result is plain DER: the
// PKCS#8 key (to encrypt at rest) and the certificate chain.
/// <reference path="./node-forge-parts.d.ts" />
// Only the parts of node-forge a PKCS#12 file needs (not its TLS, SSH or Ed25519): the package's
// index loads every module, ~80 KiB more in the worker (issue: performance). Each module is
// imported for the namespace it exports: bundlers snapshot a CommonJS module's exports when it is
// imported, so forge's shared root object would look empty.
import type { default as Forge } from "node-forge";
import asn1 from "node-forge/lib/asn1";
import "node-forge/lib/md.all";
import pkcs12 from "node-forge/lib/pkcs12";
import pki from "node-forge/lib/pki";
import util from "node-forge/lib/util";

const forge = { asn1, pkcs12, pki, util };
import { describeCertificate, type CertificateInfo } from "./certificate.ts";

export type Pkcs12ErrorCode =
  | "not_pkcs12"
  | "wrong_password"
  | "not_rsa"
  | "unreadable_key"
  | "no_certificate"
  | "no_private_key"
  | "unsupported";

export class Pkcs12Error extends Error {
  override readonly name = "Pkcs12Error";
  constructor(
    readonly code: Pkcs12ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface Pkcs12Contents {
  /** The private key as PKCS#8 PrivateKeyInfo DER: encrypt it at rest, import it to sign. */
  pkcs8: Uint8Array<ArrayBuffer>;
  /** The holder's certificate first, then the rest of the chain found in the file (DER). */
  chain: Uint8Array<ArrayBuffer>[];
  /** The holder's certificate (same bytes as chain[0]). */
  certificate: Uint8Array<ArrayBuffer>;
  subject: string;
  /** The subject's serialNumber attribute: DGII certificates carry the RNC or cédula there. */
  serialNumber: string;
  /** The RNC (9 digits) or cédula (11 digits) in `serialNumber`, or null. */
  holderId: string | null;
  /** The certificate's own serial number (hex). */
  certificateSerial: string;
  notBefore: Date;
  notAfter: Date;
}

const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";
type Bag = Forge.pkcs12.Bag;

const toBinary = (bytes: Uint8Array) => forge.util.binary.raw.encode(bytes);
const fromBinary = (binary: string) => new Uint8Array(forge.util.binary.raw.decode(binary)) as Uint8Array<ArrayBuffer>;
const der = (asn1: Forge.asn1.Asn1) => fromBinary(forge.asn1.toDer(asn1).getBytes());

function parseDer(bytes: Uint8Array): Forge.asn1.Asn1 {
  try {
    return forge.asn1.fromDer(toBinary(bytes), { strict: false } as never);
  } catch {
    throw new Pkcs12Error("not_pkcs12", "The file is not a PKCS#12 (.p12/.pfx) certificate file");
  }
}

const isMacFailure = (message: string) => /MAC could not be verified|Invalid password/i.test(message);
const isDecryptFailure = (message: string) => /decrypt/i.test(message);

function open(bytes: Uint8Array, password: string): Forge.pkcs12.Pkcs12Pfx {
  const asn1 = parseDer(bytes);
  const hasMac = Array.isArray(asn1.value) && asn1.value.length > 2;
  try {
    return forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    const message = String((error as Error).message ?? error);
    if (isMacFailure(message)) throw new Pkcs12Error("wrong_password", "Wrong password for this certificate file");
    // The MAC (PKCS#12 KDF) takes the password as BMPString, but PBES2 (AES files) takes its UTF-8
    // bytes, and forge passes the same JS string to both: a non-ASCII password needs a second
    // pass with its UTF-8 form, after the MAC has been checked with the first. The first pass
    // usually fails to decrypt, but about once in 256 files the wrong key's output happens to end
    // in valid padding and forge fails later, reading it as ASN.1: any failure gets the second pass.
    if (/[^\x00-\x7f]/.test(password)) {
      const withoutMac = parseDer(bytes);
      if (Array.isArray(withoutMac.value)) withoutMac.value.length = 2;
      try {
        return forge.pkcs12.pkcs12FromAsn1(withoutMac, false, forge.util.encodeUtf8(password));
      } catch {
        // fall through to the first error
      }
    }
    if (isDecryptFailure(message)) {
      throw hasMac
        ? new Pkcs12Error("unsupported", `The password is right but the contents could not be decrypted: ${message}`)
        : new Pkcs12Error(
            "wrong_password",
            `The certificate file could not be decrypted (wrong password?): ${message}`,
          );
    }
    if (/Unsupported|not supported/i.test(message) && !/PFX/.test(message)) {
      throw new Pkcs12Error(
        "unsupported",
        `The certificate file uses an encryption this reader does not support: ${message}`,
      );
    }
    throw new Pkcs12Error("not_pkcs12", `The file is not a readable PKCS#12 file: ${message}`);
  }
}

function samePublicKey(certificate: Forge.pki.Certificate | null, key: Forge.pki.rsa.PrivateKey): boolean {
  const publicKey = certificate?.publicKey as Forge.pki.rsa.PublicKey | undefined;
  return !!publicKey?.n && publicKey.n.equals(key.n) && publicKey.e.equals(key.e);
}

/**
 * Opens a .p12/.pfx file. Throws Pkcs12Error with code `not_pkcs12`, `wrong_password`, `not_rsa`
 * (DGII signs RSA-SHA256), `unreadable_key` (an RSA key that cannot be parsed), `no_private_key`,
 * `no_certificate` (no certificate for the key) or `unsupported` (an encryption node-forge does
 * not implement).
 */
export function readPkcs12(bytes: Uint8Array, password: string): Pkcs12Contents {
  const p12 = open(bytes, password);
  const keyBags = [
    ...(p12.getBags({ bagType: SHROUDED_KEY_BAG })[SHROUDED_KEY_BAG] ?? []),
    ...(p12.getBags({ bagType: KEY_BAG })[KEY_BAG] ?? []),
  ];
  if (keyBags.length === 0) throw new Pkcs12Error("no_private_key", "The certificate file holds no private key");
  const keyBag = keyBags[0]!;
  if (!keyBag.key) {
    // forge leaves a key it cannot parse as raw PrivateKeyInfo: another algorithm, or an RSA key
    // whose RSAPrivateKey is malformed (the file opened, so it is a PKCS#12 and the password is right).
    const oid = keyBag.asn1 ? privateKeyAlgorithm(keyBag.asn1) : "unknown";
    if (oid === RSA_ENCRYPTION)
      throw new Pkcs12Error(
        "unreadable_key",
        "The file's RSA private key is malformed or in a form this reader cannot parse",
      );
    throw new Pkcs12Error("not_rsa", `The private key is not RSA (algorithm ${oid}); DGII requires RSA-SHA256`);
  }
  const key = keyBag.key as Forge.pki.rsa.PrivateKey;
  const pkcs8 = der(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key)));

  const certBags: Bag[] = p12.getBags({ bagType: CERT_BAG })[CERT_BAG] ?? [];
  const holder = certBags.find((bag) => samePublicKey(bag.cert ?? null, key));
  if (!holder?.cert)
    throw new Pkcs12Error("no_certificate", "The certificate file holds no certificate for its private key");
  const certificateDer = (bag: Bag) => (bag.cert ? der(forge.pki.certificateToAsn1(bag.cert)) : der(bag.asn1!));
  const certificate = certificateDer(holder);
  const chain = [
    certificate,
    ...certBags.filter((bag) => bag !== holder && (bag.cert || bag.asn1)).map(certificateDer),
  ];

  const info: CertificateInfo = describeCertificate(certificate);
  return {
    pkcs8,
    chain,
    certificate,
    subject: info.subject,
    serialNumber: info.serialNumber,
    holderId: info.holderId,
    certificateSerial: info.certificateSerial,
    notBefore: info.notBefore,
    notAfter: info.notAfter,
  };
}

/** The algorithm OID of a PrivateKeyInfo. */
function privateKeyAlgorithm(privateKeyInfo: Forge.asn1.Asn1): string {
  try {
    const algorithm = (privateKeyInfo.value as Forge.asn1.Asn1[])[1]!;
    const oid = (algorithm.value as Forge.asn1.Asn1[])[0]!;
    return forge.asn1.derToOid(oid.value as string);
  } catch {
    return "unknown";
  }
}
