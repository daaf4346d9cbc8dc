// A till's own key pair as the POS makes it (RSA-OAEP, usable only to unwrap), and the opening of
// the signing material the service wraps to it: what a test needs to pair a till that signs.
import { fromBase64, toBase64 } from "@ecf/shared";

export interface WrappedMaterial {
  algorithm: string;
  wrappedKey: string;
  iv: string;
  wrappedPkcs8: string;
  certificate: string;
}

export interface TillKeys {
  publicKey: string;
  privateKey: CryptoKey;
}

const bytes = (b64: string) => new Uint8Array(fromBase64(b64)!);

export async function tillKeys(): Promise<TillKeys> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSA-OAEP", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    false,
    ["wrapKey", "unwrapKey"],
  )) as CryptoKeyPair;
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
  return { publicKey: toBase64(spki), privateKey: pair.privateKey };
}

/** Opens the material into a signing key; `extractable` only so a test can compare the PKCS#8. */
export async function openMaterial(keys: TillKeys, material: WrappedMaterial, extractable = false): Promise<CryptoKey> {
  const aes = await crypto.subtle.unwrapKey(
    "raw",
    bytes(material.wrappedKey),
    keys.privateKey,
    { name: "RSA-OAEP" },
    { name: "AES-GCM" },
    false,
    ["unwrapKey"],
  );
  return crypto.subtle.unwrapKey(
    "pkcs8",
    bytes(material.wrappedPkcs8),
    aes,
    { name: "AES-GCM", iv: bytes(material.iv) },
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    extractable,
    ["sign"],
  );
}

/** The PKCS#8 inside the material, base64 (for comparison with the uploaded certificate's key). */
export async function openedPkcs8(keys: TillKeys, material: WrappedMaterial): Promise<string> {
  const key = await openMaterial(keys, material, true);
  return toBase64(new Uint8Array((await crypto.subtle.exportKey("pkcs8", key)) as ArrayBuffer));
}
