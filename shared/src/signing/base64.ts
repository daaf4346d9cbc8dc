// Base64 without atob/btoa so the same code runs in workerd, Chromium and Node, and without the
// binary-string detour, which costs more than the encoding itself on a 100 KB certificate chain.
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

/** Standard base64 (RFC 4648 §4) with padding, on one line. */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  const n = bytes.length;
  const whole = n - (n % 3);
  for (let i = 0; i < whole; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + ALPHABET[v & 63]!;
  }
  if (n - whole === 1) {
    const v = bytes[whole]! << 16;
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + "==";
  } else if (n - whole === 2) {
    const v = (bytes[whole]! << 16) | (bytes[whole + 1]! << 8);
    out += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + "=";
  }
  return out;
}

/**
 * Decodes standard base64, ignoring XML whitespace (signature values are often wrapped at 76
 * columns). Non-canonical encodings (non-zero trailing bits) are refused. Returns null for anything else that is not base64, so callers can name the error.
 */
export function fromBase64(text: string): Uint8Array | null {
  const clean: number[] = [];
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c === 0x3d) {
      padding++;
      continue;
    }
    if (padding > 0) return null; // data after padding
    const v = c < 128 ? DECODE[c]! : -1;
    if (v < 0) return null;
    clean.push(v);
  }
  if (padding > 2 || (clean.length + padding) % 4 !== 0) return null;
  const rest = clean.length % 4;
  if (rest === 1) return null;
  const out = new Uint8Array(Math.floor(clean.length / 4) * 3 + (rest === 0 ? 0 : rest - 1));
  let o = 0;
  let i = 0;
  for (; i + 4 <= clean.length; i += 4) {
    const v = (clean[i]! << 18) | (clean[i + 1]! << 12) | (clean[i + 2]! << 6) | clean[i + 3]!;
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
    out[o++] = v & 255;
  }
  // Bits beyond the last byte must be zero: one value, one encoding (no malleable signatures).
  if (rest === 2 && (clean[i + 1]! & 15) !== 0) return null;
  if (rest === 3 && (clean[i + 2]! & 3) !== 0) return null;
  if (rest === 2) {
    out[o++] = ((clean[i]! << 18) | (clean[i + 1]! << 12)) >> 16;
  } else if (rest === 3) {
    const v = (clean[i]! << 18) | (clean[i + 1]! << 12) | (clean[i + 2]! << 6);
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
  }
  return out;
}
