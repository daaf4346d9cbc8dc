// Console passwords are kept only as PBKDF2-SHA256 with a per-user random salt, at the 100,000
// iterations Workers' WebCrypto allows (the most it derives; a memory-hard KDF in pure JS would
// cost the request's CPU budget instead). Stored as `pbkdf2-sha256$<iterations>$<salt>$<hash>`.
import { fromBase64, toBase64 } from "@ecf/shared";

export const PASSWORD_ITERATIONS = 100_000;
export const MIN_PASSWORD_LENGTH = 10;
const SCHEME = "pbkdf2-sha256";

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, PASSWORD_ITERATIONS);
  return `${SCHEME}$${PASSWORD_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

/** Derived for unknown e-mails too, so an unknown address costs what a wrong password costs. */
const UNKNOWN_USER_HASH = `${SCHEME}$${PASSWORD_ITERATIONS}$${"A".repeat(22)}==$${"A".repeat(43)}=`;

/** Whether `password` is the one `stored` was made from (constant time over the derived bytes). */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const [scheme, iterationsText, saltText, hashText] = (stored ?? UNKNOWN_USER_HASH).split("$");
  const iterations = Number(iterationsText);
  if (scheme !== SCHEME || !Number.isInteger(iterations) || !saltText || !hashText) return false;
  const [expected, salt] = [fromBase64(hashText), fromBase64(saltText)];
  if (!expected || !salt) return false;
  const actual = await derive(password, new Uint8Array(salt), iterations);
  let diff = expected.length ^ actual.length;
  for (let i = 0; i < actual.length; i++) diff |= actual[i]! ^ (expected[i] ?? 0);
  return diff === 0 && stored !== undefined;
}
