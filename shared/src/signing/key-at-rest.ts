// The private key at rest: PKCS#8 sealed with AES-256-GCM under a master secret, in a versioned
// format, and imported per isolate as a non-extractable CryptoKey (the .p12 is never parsed on the
// signing path).
//
// Format v1: 0x01 | IV (12 random bytes) | AES-GCM ciphertext with its 16-byte tag.
// The additional authenticated data binds the version and an optional context (e.g. the tenant's
// RNC), so a sealed key cannot be moved to another tenant's row unnoticed.
import { fromBase64 } from "./base64.ts";
import { RSA_PKCS1_SHA256 } from "./profile.ts";

export type KeyAtRestErrorCode = "bad_master_key" | "unsupported_version" | "malformed" | "decrypt_failed";

export class KeyAtRestError extends Error {
  override readonly name = "KeyAtRestError";
  constructor(
    readonly code: KeyAtRestErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const VERSION = 1;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const encoder = new TextEncoder();

const aad = (context: string) => encoder.encode(`ecf-edge/pkcs8/v${VERSION}\u0000${context}`);

/** Imports a 32-byte master secret (raw bytes, or base64 as stored in a Worker secret). */
export async function importMasterKey(secret: Uint8Array | string): Promise<CryptoKey> {
  const raw = typeof secret === "string" ? fromBase64(secret) : secret;
  if (raw?.length !== 32)
    throw new KeyAtRestError("bad_master_key", "The master key must be 32 bytes (base64 of 32 bytes)");
  return crypto.subtle.importKey("raw", new Uint8Array(raw), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

/** Seals a PKCS#8 key under the master key. `context` must be given again to decrypt. */
export async function encryptPkcs8(
  pkcs8: Uint8Array,
  masterKey: CryptoKey,
  context = "",
): Promise<Uint8Array<ArrayBuffer>> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_LENGTH));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: aad(context), tagLength: TAG_LENGTH * 8 },
      masterKey,
      new Uint8Array(pkcs8),
    ),
  );
  const out = new Uint8Array(1 + IV_LENGTH + sealed.length);
  out[0] = VERSION;
  out.set(iv, 1);
  out.set(sealed, 1 + IV_LENGTH);
  return out;
}

/** Opens what encryptPkcs8 sealed. Throws KeyAtRestError. */
export async function decryptPkcs8(
  sealed: Uint8Array,
  masterKey: CryptoKey,
  context = "",
): Promise<Uint8Array<ArrayBuffer>> {
  if (sealed.length === 0) throw new KeyAtRestError("malformed", "Empty sealed key");
  if (sealed[0] !== VERSION)
    throw new KeyAtRestError("unsupported_version", `Sealed key format version ${sealed[0]} is not supported`);
  if (sealed.length < 1 + IV_LENGTH + TAG_LENGTH) throw new KeyAtRestError("malformed", "Sealed key is truncated");
  const iv = sealed.slice(1, 1 + IV_LENGTH);
  try {
    return new Uint8Array(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv, additionalData: aad(context), tagLength: TAG_LENGTH * 8 },
        masterKey,
        sealed.slice(1 + IV_LENGTH),
      ),
    );
  } catch {
    throw new KeyAtRestError(
      "decrypt_failed",
      "The sealed key does not open with this master key and context (wrong key, wrong context, or altered bytes)",
    );
  }
}

/** Imports a PKCS#8 RSA key as a non-extractable RSASSA-PKCS1-v1_5 / SHA-256 signing key. */
export async function importSigningKey(pkcs8: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("pkcs8", new Uint8Array(pkcs8), RSA_PKCS1_SHA256, false, ["sign"]);
}
