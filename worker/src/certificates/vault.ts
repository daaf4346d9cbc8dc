import type { Pkcs12Contents, Pkcs12ErrorCode } from "@ecf/shared/signing/pkcs12";
import { decryptPkcs8, encryptPkcs8, importMasterKey, importSigningKey } from "@ecf/shared/signing/key-at-rest";
import { fromBase64, toBase64 } from "@ecf/shared/signing/base64";
import { refuse } from "../errors/refusal.ts";

export interface UploadedCertificate {
  pkcs8: Uint8Array;
  derBase64: string;
  subject: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
}

// One message per reader code: typed by the code, so a new code cannot go without its message.
const CERTIFICATE_PROBLEMS: Record<Pkcs12ErrorCode, string> = {
  wrong_password: "The password does not open this certificate file.",
  not_rsa: "The certificate's key is not RSA; DGII requires RSA signatures.",
  unreadable_key:
    "The file's RSA private key is damaged or in a form that cannot be read; export the certificate again from where it was issued.",
  not_pkcs12: "The file is not a PKCS#12 (.p12/.pfx) certificate.",
  no_certificate: "The file holds no certificate for its private key.",
  no_private_key: "The file holds a certificate but no private key; export it again including the private key.",
  unsupported:
    "The file is protected with an encryption this service cannot open; export it again with AES-256 or 3DES (the usual .p12 options).",
};

/** Opens an uploaded .p12/.pfx, turning each way it can be wrong into a clear 400. */
export async function readCertificateUpload(
  bytes: Uint8Array,
  password: string,
  now: Date,
): Promise<UploadedCertificate> {
  // node-forge's PKCS#12 reader (its tables and ciphers) loads on the first upload, not at start-up.
  const { Pkcs12Error, readPkcs12 } = await import("@ecf/shared/signing/pkcs12");
  let parsed: Pkcs12Contents;
  try {
    parsed = readPkcs12(bytes, password);
  } catch (error) {
    const code = error instanceof Pkcs12Error ? error.code : "not_pkcs12";
    const message = CERTIFICATE_PROBLEMS[code];
    throw refuse("unusable", {
      detail: message,
      errors: [{ path: code === "wrong_password" ? "/password" : "/file", code, message }],
    });
  }
  const notAfter = parsed.notAfter.toISOString();
  if (parsed.notAfter.getTime() <= now.getTime()) {
    const message = `The certificate expired on ${notAfter}.`;
    throw refuse("unusable", {
      detail: message,
      errors: [{ path: "/file", code: "certificate_expired", message }],
    });
  }
  return {
    pkcs8: parsed.pkcs8,
    derBase64: toBase64(parsed.certificate),
    subject: parsed.subject,
    serialNumber: parsed.serialNumber,
    notBefore: parsed.notBefore.toISOString(),
    notAfter,
  };
}

/**
 * Encrypts the PKCS#8 at rest under MASTER_KEY (AES-GCM), bound to the company id so a sealed key
 * copied to another company's row does not open. The base64 text is what D1 stores.
 */
export async function sealPrivateKey(pkcs8: Uint8Array, masterKey: string, companyId: string): Promise<string> {
  return toBase64(await encryptPkcs8(pkcs8, await importMasterKey(masterKey), companyId));
}

/** The PKCS#8 back in clear, for provisioning a paired device over its authenticated channel. */
export async function openPrivateKey(sealed: string, masterKey: string, companyId: string): Promise<Uint8Array> {
  const bytes = fromBase64(sealed);
  if (!bytes) throw new Error("stored private key is not valid base64");
  return decryptPkcs8(bytes, await importMasterKey(masterKey), companyId);
}

// One import per isolate and certificate: importing is cheap but not free, and signing is hot.
const keyCache = new Map<string, Promise<CryptoKey>>();

/** The issuer's non-extractable signing key, decrypted and imported once per isolate. */
export function signingKeyFor(sealed: string, masterKey: string, companyId: string): Promise<CryptoKey> {
  const cacheKey = `${companyId}:${sealed}`;
  let key = keyCache.get(cacheKey);
  if (!key) {
    key = openPrivateKey(sealed, masterKey, companyId).then((pkcs8) => importSigningKey(pkcs8));
    key.catch(() => keyCache.delete(cacheKey));
    keyCache.set(cacheKey, key);
  }
  return key;
}

/** Per issuer, its certificate's bytes as last decoded (a new certificate is decoded again). */
const certificates = new Map<string, { base64: string; der: Uint8Array }>();

/**
 * The issuer's stored certificate (base64) as bytes, decoded once per isolate: the same array
 * every time, so the signer's own cache of its base64 form holds too. Callers only read it.
 */
export function certificateDerOf(derBase64: string, companyId: string): Uint8Array {
  const known = certificates.get(companyId);
  if (known?.base64 === derBase64) return known.der;
  const der = fromBase64(derBase64);
  if (!der) throw new Error("stored certificate is not valid base64");
  certificates.set(companyId, { base64: derBase64, der });
  return der;
}

/** SHA-256 (hex) of a certificate given as base64 DER: what changes with every certificate. */
export async function certificateSha256(derBase64: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(fromBase64(derBase64) ?? []));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
