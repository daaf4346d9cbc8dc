// Pairing codes and device tokens. Only SHA-256 hashes are stored; the clear values are shown once.
import { randomToken, sha256Hex } from "../crypto/credentials.ts";

/** Crockford-style alphabet without 0/O, 1/I/L and U: nothing a cashier can misread or mistype. */
const PAIRING_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";
export const PAIRING_CODE_LENGTH = 8;
/** A pairing code is meant to be typed right away at the till. */
export const PAIRING_TTL_MS = 15 * 60 * 1000;
export const DEVICE_TOKEN_PREFIX = "dvt_";

/** "XXXX-XXXX": 30^8 ≈ 6.6·10^11 codes, each usable once for 15 minutes. */
export function newPairingCode(): string {
  const out: string[] = [];
  // Rejection sampling keeps every symbol equally likely (256 is not a multiple of 30).
  const limit = 256 - (256 % PAIRING_ALPHABET.length);
  while (out.length < PAIRING_CODE_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      if (byte < limit && out.length < PAIRING_CODE_LENGTH) out.push(PAIRING_ALPHABET[byte % PAIRING_ALPHABET.length]!);
    }
  }
  return `${out.slice(0, 4).join("")}-${out.slice(4).join("")}`;
}

/** What the cashier typed, reduced to the code's symbols: case, spaces and dashes do not matter. */
export function normalizePairingCode(typed: string): string {
  const symbols = typed.toUpperCase().replace(/[\s-]/g, "");
  return symbols.length === PAIRING_CODE_LENGTH ? `${symbols.slice(0, 4)}-${symbols.slice(4)}` : symbols;
}

export function hashPairingCode(code: string): Promise<string> {
  return sha256Hex(`pairing:${normalizePairingCode(code)}`);
}

export function newDeviceToken(): string {
  return DEVICE_TOKEN_PREFIX + randomToken(32);
}

export function hashDeviceToken(token: string): Promise<string> {
  return sha256Hex(`device:${token}`);
}

export function newDeviceId(): string {
  return `dev_${randomToken(12)}`;
}
