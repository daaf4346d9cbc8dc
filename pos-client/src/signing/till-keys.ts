// The till's own key pair: the issuer's signing key reaches the till wrapped to it, so the key is
// in clear neither in the pairing answer nor in any log on the way. The private half is generated
// here, non-extractable and usable only to unwrap, and kept as the CryptoKey itself in IndexedDB;
// the material opens straight into a non-extractable signing key (the PKCS#8 is never in memory).
import { fromBase64, toBase64 } from "@ecf/shared/signing/base64";
import type { PosDatabase } from "../db.ts";

const TILL_KEY = "till-key";
const RSA_OAEP = { name: "RSA-OAEP", hash: "SHA-256" } as const;

interface TillKeyPair {
  privateKey: CryptoKey;
  /** SPKI DER, base64: what the till sends at pairing. */
  publicKey: string;
}

/** What the service sends: the key wrapped to the till (worker/src/devices/key-wrapping.ts). */
export interface WrappedSigningKey {
  algorithm: string;
  wrappedKey: string;
  iv: string;
  wrappedPkcs8: string;
}

/** A new key pair for a new pairing (a pairing never reuses an earlier one's). */
export async function newTillKeyPair(db: PosDatabase): Promise<string> {
  const pair = (await crypto.subtle.generateKey(
    { ...RSA_OAEP, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    false,
    ["wrapKey", "unwrapKey"],
  )) as CryptoKeyPair;
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
  const stored: TillKeyPair = { privateKey: pair.privateKey, publicKey: toBase64(spki) };
  await db.setSetting(TILL_KEY, stored);
  return stored.publicKey;
}

const bytes = (b64: string) => {
  const out = fromBase64(b64);
  if (!out) throw new Error("Material de firma inválido");
  return new Uint8Array(out);
};

/** Opens the wrapped material into the issuer's signing key, non-extractable, usable only to sign. */
export async function openSigningKey(db: PosDatabase, material: WrappedSigningKey): Promise<CryptoKey> {
  const pair = await db.setting<TillKeyPair>(TILL_KEY);
  if (!pair) throw new Error("Esta caja no tiene su llave propia: vuelva a vincularla");
  const aes = await crypto.subtle.unwrapKey(
    "raw",
    bytes(material.wrappedKey),
    pair.privateKey,
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
    false,
    ["sign"],
  );
}
