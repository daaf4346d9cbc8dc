// Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (seconds) and
// `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed by the bytes
// of a `whsec_<base64>` secret.
import { fromBase64, toBase64 } from "@ecf/shared/signing/base64";

export const SECRET_PREFIX = "whsec_";

/** A fresh secret: 24 random bytes, as `whsec_<base64>`. */
export function newSecret(): { secret: string; bytes: Uint8Array } {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return { secret: `${SECRET_PREFIX}${toBase64(bytes)}`, bytes };
}

export async function signatureHeaders(
  secret: Uint8Array,
  id: string,
  timestamp: Date,
  body: string,
): Promise<Record<string, string>> {
  const seconds = String(Math.floor(timestamp.getTime() / 1000));
  const key = await crypto.subtle.importKey("raw", new Uint8Array(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${seconds}.${body}`));
  return { "webhook-id": id, "webhook-timestamp": seconds, "webhook-signature": `v1,${toBase64(new Uint8Array(mac))}` };
}

export function secretBytes(secret: string): Uint8Array | undefined {
  return (secret.startsWith(SECRET_PREFIX) ? fromBase64(secret.slice(SECRET_PREFIX.length)) : null) ?? undefined;
}
