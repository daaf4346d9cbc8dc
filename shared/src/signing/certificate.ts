// What we need to know about an X.509 certificate: who holds it (DGII certificates carry the
// holder's RNC or cédula in the subject's serialNumber attribute), its validity and its key.
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { RSA_PKCS1_SHA256 } from "./profile.ts";

export interface CertificateInfo {
  /** Subject in certificate order, RFC 4514 style: "CN=..., SERIALNUMBER=IDCDO-00199999996, C=DO". */
  subject: string;
  issuer: string;
  /** The subject's serialNumber attribute as written (e.g. "IDCDO-05500147813", "RNC 130222509"); "" if absent. */
  serialNumber: string;
  /** The RNC (9 digits) or cédula (11 digits) found in `serialNumber`, or null. */
  holderId: string | null;
  /** The certificate's own serial number, upper-case hex. */
  certificateSerial: string;
  notBefore: Date;
  notAfter: Date;
  der: Uint8Array;
}

const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
const SERIAL_NUMBER = "2.5.4.5";
const SHORT_NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.4": "SN",
  "2.5.4.5": "SERIALNUMBER",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.12": "T",
  "2.5.4.42": "GN",
  "2.5.4.46": "dnQualifier",
  "2.5.4.97": "organizationIdentifier",
  "1.2.840.113549.1.9.1": "E",
};

/** Thrown when bytes are not a DER X.509 certificate. */
export class CertificateError extends Error {
  override readonly name = "CertificateError";
}

function parse(der: Uint8Array): pkijs.Certificate {
  const asn = asn1js.fromBER(der);
  if (asn.offset === -1) throw new CertificateError(`Not a DER certificate: ${asn.result.error}`);
  try {
    return new pkijs.Certificate({ schema: asn.result });
  } catch (error) {
    throw new CertificateError(`Not an X.509 certificate: ${(error as Error).message}`);
  }
}

function attributeValue(value: unknown): string {
  const block = (value as { valueBlock?: { value?: unknown } }).valueBlock;
  return typeof block?.value === "string" ? block.value : "";
}

function escapeRdn(value: string): string {
  return value.replace(/[,+"\\<>;]/g, (c) => `\\${c}`).replace(/^[ #]|[ ]$/g, (c) => `\\${c}`);
}

function formatName(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((tv) => `${SHORT_NAMES[tv.type] ?? tv.type}=${escapeRdn(attributeValue(tv.value))}`)
    .join(", ");
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out.toUpperCase();
}

/** The RNC (9 digits) or cédula (11 digits) inside a DGII subject serialNumber, e.g. "IDCDO-00199999996". */
export function holderIdFrom(serialNumber: string): string | null {
  const digits = serialNumber.match(/\d+/g)?.join("") ?? "";
  return digits.length === 9 || digits.length === 11 ? digits : null;
}

/** Reads the parts of a certificate we show and store. Throws CertificateError. */
export function describeCertificate(der: Uint8Array): CertificateInfo {
  const cert = parse(der);
  const serialNumber = attributeValue(cert.subject.typesAndValues.find((tv) => tv.type === SERIAL_NUMBER)?.value);
  const certificateSerial = toHex(new Uint8Array(cert.serialNumber.valueBlock.valueHexView)).replace(/^0+(?=.)/, "");
  return {
    subject: formatName(cert.subject),
    issuer: formatName(cert.issuer),
    serialNumber,
    holderId: holderIdFrom(serialNumber),
    certificateSerial,
    notBefore: cert.notBefore.value,
    notAfter: cert.notAfter.value,
    der: new Uint8Array(der),
  };
}

/** The certificate's RSA public key, ready to verify RSA-SHA256 signatures. */
export async function certificatePublicKey(der: Uint8Array): Promise<CryptoKey> {
  const cert = parse(der);
  if (cert.subjectPublicKeyInfo.algorithm.algorithmId !== RSA_ENCRYPTION)
    throw new CertificateError("The certificate key is not RSA");
  const spki = cert.subjectPublicKeyInfo.toSchema().toBER(false);
  return crypto.subtle.importKey("spki", spki, RSA_PKCS1_SHA256, false, ["verify"]);
}
