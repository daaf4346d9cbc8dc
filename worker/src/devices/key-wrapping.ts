// The signing key's envelope to one till: the till generates an RSA-OAEP key pair it cannot export
// (pos-client/src/signing/till-keys.ts) and sends the public half at pairing; the service encrypts
// the PKCS#8 under a fresh AES-256-GCM key and that key under the till's public key. Only the till
// can open it, with WebCrypto's unwrapKey straight into a non-extractable signing key, so the key
// is in clear neither in an answer's body nor in any log on the way.
import { fromBase64, toBase64 } from "@ecf/shared";
import { ApiProblem } from "../errors/problem.ts";

export const WRAPPING_ALGORITHM = "RSA-OAEP-256+A256GCM";
const RSA_OAEP = { name: "RSA-OAEP", hash: "SHA-256" } as const;
const MIN_MODULUS_BITS = 2048;

export interface WrappedKey {
  algorithm: typeof WRAPPING_ALGORITHM;
  /** The AES-256 key, encrypted with RSA-OAEP (SHA-256) to the till's public key, base64. */
  wrappedKey: string;
  /** The AES-GCM nonce, base64 (12 bytes). */
  iv: string;
  /** The PKCS#8 DER encrypted with AES-GCM under that key (tag appended), base64. */
  wrappedPkcs8: string;
}

const badKey = (detail: string) =>
  new ApiProblem("validation_failed", {
    detail,
    errors: [{ path: "/publicKey", code: "public_key_invalid", message: detail }],
  });

/** Imports the till's public key (SPKI, base64): RSA-OAEP with SHA-256, at least 2048 bits. */
export async function tillPublicKey(spkiBase64: string): Promise<CryptoKey> {
  const spki = fromBase64(spkiBase64);
  if (!spki) throw badKey("publicKey is not base64.");
  const key = await crypto.subtle
    .importKey("spki", new Uint8Array(spki), RSA_OAEP, false, ["encrypt"])
    .catch(() => Promise.reject(badKey("publicKey is not an RSA public key (SPKI DER in base64).")));
  const bits = (key.algorithm as RsaHashedKeyAlgorithm).modulusLength;
  if (bits < MIN_MODULUS_BITS) throw badKey(`publicKey has ${bits} bits; at least ${MIN_MODULUS_BITS} are needed.`);
  return key;
}

/** The PKCS#8 in its envelope to the till's public key. */
export async function wrapForTill(pkcs8: Uint8Array, spkiBase64: string): Promise<WrappedKey> {
  const recipient = await tillPublicKey(spkiBase64);
  const aes = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, aes, new Uint8Array(pkcs8));
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", aes));
  const wrapped = await crypto.subtle.encrypt(RSA_OAEP, recipient, raw);
  raw.fill(0);
  return {
    algorithm: WRAPPING_ALGORITHM,
    wrappedKey: toBase64(new Uint8Array(wrapped)),
    iv: toBase64(iv),
    wrappedPkcs8: toBase64(new Uint8Array(sealed)),
  };
}
