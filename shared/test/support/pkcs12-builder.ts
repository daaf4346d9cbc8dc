// Hand-built PKCS#12 files for the cases no tool writes on purpose: a key bag whose RSA key is
// malformed, a key encrypted with a cipher the reader does not know, a file with no key at all.
// Pure node-forge ASN.1, so workerd tests can build them too (no openssl there).
import forge from "node-forge";

const { asn1 } = forge;
const U = asn1.Class.UNIVERSAL;
const T = asn1.Type;
const seq = (value: forge.asn1.Asn1[]) => asn1.create(U, T.SEQUENCE, true, value);
const oid = (id: string) => asn1.create(U, T.OID, false, asn1.oidToDer(id).getBytes());
const octets = (binary: string) => asn1.create(U, T.OCTETSTRING, false, binary);
const explicit0 = (value: forge.asn1.Asn1) => asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [value]);
const derOf = (node: forge.asn1.Asn1) => asn1.toDer(node).getBytes();
const binary = (bytes: Uint8Array) => forge.util.binary.raw.encode(bytes);

const RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
const DATA = "1.2.840.113549.1.7.1";
const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";
const X509_CERTIFICATE = "1.2.840.113549.1.9.22.1";

const safeBag = (type: string, value: forge.asn1.Asn1) => seq([oid(type), explicit0(value)]);

/** A key bag whose PrivateKeyInfo says rsaEncryption but holds bytes that are no RSAPrivateKey. */
export function malformedRsaKeyBag(): forge.asn1.Asn1 {
  const notAnRsaKey = derOf(
    seq([asn1.create(U, T.INTEGER, false, "\x00"), asn1.create(U, T.UTF8, false, "not an RSA key")]),
  );
  return safeBag(
    KEY_BAG,
    seq([
      asn1.create(U, T.INTEGER, false, "\x00"),
      seq([oid(RSA_ENCRYPTION), asn1.create(U, T.NULL, false, "")]),
      octets(notAnRsaKey),
    ]),
  );
}

/** A shrouded key bag encrypted with an algorithm (OID) the reader does not implement. */
export function unknownCipherKeyBag(algorithm = "1.2.392.200011.61.1.1.1.4"): forge.asn1.Asn1 {
  const params = seq([octets("\x01\x02\x03\x04\x05\x06\x07\x08"), asn1.create(U, T.INTEGER, false, "\x08\x00")]);
  return safeBag(SHROUDED_KEY_BAG, seq([seq([oid(algorithm), params]), octets("\x00".repeat(48))]));
}

/** A certificate bag holding this DER certificate. */
export function certificateBag(certificateDer: Uint8Array): forge.asn1.Asn1 {
  return safeBag(CERT_BAG, seq([oid(X509_CERTIFICATE), explicit0(octets(binary(certificateDer)))]));
}

/** A PFX (version 3, no MAC, unencrypted content) holding these bags. */
export function pfxWithBags(bags: forge.asn1.Asn1[]): Uint8Array<ArrayBuffer> {
  const contentInfo = seq([oid(DATA), explicit0(octets(derOf(seq(bags))))]);
  const pfx = seq([
    asn1.create(U, T.INTEGER, false, "\x03"),
    seq([oid(DATA), explicit0(octets(derOf(seq([contentInfo]))))]),
  ]);
  return new Uint8Array(forge.util.binary.raw.decode(derOf(pfx))) as Uint8Array<ArrayBuffer>;
}
