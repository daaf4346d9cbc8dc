// The device's signing key: opened once from the material wrapped to the till's own key pair
// (till-keys.ts), non-extractable, and kept as the CryptoKey object itself in IndexedDB
// (structured clone keeps it non-extractable). Replaced when the issuer's certificate changes,
// deleted on revocation.
import { fromBase64 } from "@ecf/shared/signing/base64";
import { importSigningKey } from "@ecf/shared/signing/key-at-rest";
import { sha256Hex } from "@ecf/shared/sha256";
import type { PosDatabase, SigningKeyRecord } from "../db.ts";
import { openSigningKey, type WrappedSigningKey } from "./till-keys.ts";

/** Installs the key the service wrapped to this till (at pairing, after an owner's approval, or a re-key). */
export async function installWrappedKey(
  db: PosDatabase,
  material: WrappedSigningKey & { certificate: string; certificateSerial: string | null },
): Promise<SigningKeyRecord> {
  const certificate = fromBase64(material.certificate);
  if (!certificate) throw new Error("Material de firma inválido");
  const key = await openSigningKey(db, material);
  const record: SigningKeyRecord = { id: "signing", key, certificate, certificateSerial: material.certificateSerial };
  await db.keys.put(record);
  return record;
}

/** Installs a key from its PKCS#8 bytes (a key made on this machine: tests, the bench). */
export async function installSigningKey(
  db: PosDatabase,
  material: { pkcs8: string; certificate: string; certificateSerial: string | null },
): Promise<SigningKeyRecord> {
  const pkcs8 = fromBase64(material.pkcs8);
  const certificate = fromBase64(material.certificate);
  if (!pkcs8 || !certificate) throw new Error("Material de firma inválido");
  const key = await importSigningKey(pkcs8);
  pkcs8.fill(0);
  const record: SigningKeyRecord = { id: "signing", key, certificate, certificateSerial: material.certificateSerial };
  await db.keys.put(record);
  return record;
}

export async function signingKey(db: PosDatabase): Promise<SigningKeyRecord | undefined> {
  return db.keys.get("signing");
}

export async function deleteSigningKey(db: PosDatabase): Promise<void> {
  await db.keys.delete("signing");
}

/**
 * Whether the key is not the issuer's current one: the server's certificate digest differs from
 * the digest of the certificate stored with the key (a renewal keeps the holder's serial, so the
 * serial decides only when the server sends no digest).
 */
export async function keyIsOutdated(
  key: SigningKeyRecord | undefined,
  current: { certificateSerial: string | null; certificateSha256?: string | null },
): Promise<boolean> {
  if (!key) return true;
  if (!current.certificateSha256) return current.certificateSerial !== key.certificateSerial;
  return (await sha256Hex(key.certificate)) !== current.certificateSha256;
}
