// A cashier's PIN, checked on the till with no network: the catalogue ships only its hash
// (worker/src/catalog/cashiers.ts), scrypt or, for a PIN set before it, PBKDF2-SHA256, and the
// till derives the same bits from what was typed (@ecf/shared/pin-kdf).
import { pinHashMatches } from "@ecf/shared/pin-kdf";
import type { Cashier } from "../db.ts";

/** Whether `pin` is the cashier's PIN. An inactive cashier, or an unknown algorithm, never matches. */
export async function pinMatches(cashier: Cashier, pin: string): Promise<boolean> {
  if (!cashier.active || !/^\d{4,12}$/.test(pin)) return false;
  return pinHashMatches(cashier.pin, pin);
}
