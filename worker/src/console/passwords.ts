// Console passwords are kept only as PBKDF2-SHA256 with a per-user random salt, at the 100,000
// iterations Workers' WebCrypto allows (the most it derives; a memory-hard KDF in pure JS would
// cost the request's CPU budget instead). Stored as `pbkdf2-sha256$<iterations>$<salt>$<hash>`.
import { fromBase64, toBase64 } from "@ecf/shared";

export const PASSWORD_ITERATIONS = 100_000;
export const MIN_PASSWORD_LENGTH = 10;
const SCHEME = "pbkdf2-sha256";

/**
 * Passwords of the allowed length that guessers try first (the most common ones in published
 * breach lists, in English and Spanish, and this product's own words). An online guesser gets a
 * handful of tries per window: these are the ones it would spend them on.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "1234567890",
  "0987654321",
  "1122334455",
  "1234512345",
  "123456789a",
  "123456789q",
  "a123456789",
  "qwertyuiop",
  "1q2w3e4r5t",
  "1qaz2wsx3edc",
  "q1w2e3r4t5",
  "zaq12wsxcde",
  "asdfghjkl1",
  "qwerty1234",
  "password12",
  "password123",
  "password1234",
  "passw0rd12",
  "iloveyou12",
  "abcdefghij",
  "abc1234567",
  "contraseña",
  "contrasena",
  "contrasena1",
  "contraseña1",
  "contrasena123",
  "micontrasena",
  "teamo12345",
  "dominicana",
  "republicadominicana",
  "santodomingo",
  "facturacion",
  "ecf-edge123",
  "administrador",
]);

/**
 * Why `password` may not be a new console password (null when it may): shorter than the minimum,
 * one of the common ones, one or two characters repeated, or the address (or its local part)
 * itself. Checked when a password is set, never at sign-in, so an older one keeps working.
 */
export function weakPasswordReason(password: string, email: string): string | null {
  const lower = password.toLowerCase();
  if ([...password].length < MIN_PASSWORD_LENGTH) return `shorter than ${MIN_PASSWORD_LENGTH} characters`;
  if (COMMON_PASSWORDS.has(lower)) return "one of the most common passwords";
  if (new Set(lower).size <= 2) return "one or two characters repeated";
  const address = email.toLowerCase();
  if (lower === address || lower === address.split("@")[0]) return "the e-mail address itself";
  return null;
}

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
