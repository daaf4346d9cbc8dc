// A cashier's PIN hash, derived the same way by the worker (when the PIN is set) and by the till
// (to check a PIN offline). The hash travels to every paired till, so a stolen till allows an
// offline search of the PIN space: the work factor is what stands between 10^6 PINs and the thief.
// scrypt (memory-hard, in pure JS: WebCrypto has no scrypt and caps PBKDF2 at 100k in Workers)
// with N 2^14, r 8: 16 MiB per derivation, about 0.3-0.5 s on a till (docs/security.md).
// Hashes made before it (PBKDF2-SHA256, 100k) still verify; the next PIN change writes scrypt.
import { scryptAsync } from "@noble/hashes/scrypt.js";

export interface ScryptPin {
  algorithm: "scrypt";
  N: number;
  r: number;
  p: number;
  /** base64 */
  salt: string;
  /** base64, 32 bytes */
  hash: string;
}

export interface Pbkdf2Pin {
  algorithm: "PBKDF2-SHA256";
  iterations: number;
  salt: string;
  hash: string;
}

export type PinHash = ScryptPin | Pbkdf2Pin;

/** The cost of a PIN hash made today. 128 * N * r = 16 MiB of memory per derivation. */
export const PIN_SCRYPT = { N: 2 ** 14, r: 8, p: 1 } as const;
const DK_LEN = 32;
/** Refuses parameters that would take a till's (or the worker's) memory or minutes: 64 MiB at most. */
const MAX_MEMORY = 64 * 1024 * 1024;

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The scrypt bits of `pin` (UTF-8) with `salt`; yields to the event loop so a till's screen stays live. */
export function scryptPin(pin: string, salt: Uint8Array, params: { N: number; r: number; p: number }) {
  return scryptAsync(new TextEncoder().encode(pin), salt, { ...params, dkLen: DK_LEN, maxmem: MAX_MEMORY });
}

/** A new hash of `pin` with a fresh 16-byte salt, at today's cost. */
export async function hashPin(pin: string, params: { N: number; r: number; p: number } = PIN_SCRYPT) {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await scryptPin(pin, salt, params);
  return { algorithm: "scrypt", ...params, salt: toBase64(salt), hash: toBase64(hash) } satisfies ScryptPin;
}

async function pbkdf2(pin: string, salt: Uint8Array<ArrayBuffer>, iterations: number, bits: number) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(pin), "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, bits),
  );
}

/** Whether `pin` is the PIN `stored` was made of, by either algorithm; an unknown one never matches. */
export async function pinHashMatches(stored: PinHash, pin: string): Promise<boolean> {
  const expected = fromBase64(stored.hash);
  const salt = fromBase64(stored.salt);
  let derived: Uint8Array;
  if (stored.algorithm === "scrypt") {
    if (128 * stored.N * stored.r > MAX_MEMORY) return false;
    derived = await scryptPin(pin, salt, stored);
  } else if (stored.algorithm === "PBKDF2-SHA256") {
    derived = await pbkdf2(pin, salt, stored.iterations, expected.length * 8);
  } else return false;
  // Every byte compared whatever the first difference: how long a check takes says nothing.
  let differ = derived.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) differ |= (derived[i] ?? 0) ^ expected[i]!;
  return differ === 0;
}
