// A cashier's PIN, checked on the till with no network: the catalogue ships only its PBKDF2-SHA256
// hash (worker/src/catalog/cashiers.ts), and WebCrypto derives the same bits from what was typed.
import type { Cashier } from "../db.ts";

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** Whether `pin` is the cashier's PIN. An inactive cashier, or an unknown algorithm, never matches. */
export async function pinMatches(cashier: Cashier, pin: string): Promise<boolean> {
  if (!cashier.active || cashier.pin.algorithm !== "PBKDF2-SHA256" || !/^\d{4,12}$/.test(pin)) return false;
  const expected = fromBase64(cashier.pin.hash);
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(pin), "PBKDF2", false, ["deriveBits"]);
  const derived = new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt: fromBase64(cashier.pin.salt), iterations: cashier.pin.iterations },
      key,
      expected.length * 8,
    ),
  );
  // Every byte compared whatever the first difference: how long a check takes says nothing.
  let differ = derived.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) differ |= (derived[i] ?? 0) ^ expected[i]!;
  return differ === 0;
}
