// A cashier of the issuer's tills. The PIN is kept only as a PBKDF2-SHA256 hash, shipped to the
// paired tills so a cashier signs in offline: the till derives the same hash with WebCrypto.
import { z } from "@hono/zod-openapi";
import { toBase64 } from "@ecf/shared";
import type { cashiers } from "../ledger/issuer-tables.ts";

/** Workers' WebCrypto caps PBKDF2 at 100,000 iterations; a till derives one hash per sign-in. */
export const PIN_ITERATIONS = 100_000;
export const PIN_ALGORITHM = "PBKDF2-SHA256";

export type CashierRow = typeof cashiers.$inferSelect;
export interface PinHash {
  iterations: number;
  salt: string;
  hash: string;
}

/**
 * At least 6 digits: the hash goes to every paired till, so a stolen till allows an offline
 * search of the whole space; 10^6 PINs instead of 10^4 (README: Security). PINs set before this
 * rule keep working until changed.
 */
export const PIN_PATTERN = /^\d{6,12}$/;
const pin = z
  .string()
  .regex(PIN_PATTERN, "pin must be 6 to 12 digits")
  .openapi({ description: "6 to 12 digits; kept only as a PBKDF2-SHA256 hash", example: "482193" });
const name = z.string().trim().min(1).max(60).openapi({ example: "María Pérez" });

export const CashierInput = z.object({ name, pin }).strict().openapi("CashierInput");
export const CashierPatch = z.object({ name, pin, active: z.boolean() }).partial().strict().openapi("CashierPatch");

/** The issuer's view: no PIN material (the issuer sets a PIN, it never reads one back). */
export const Cashier = z
  .object({ id: z.string(), name: z.string(), active: z.boolean(), version: z.number().int(), updatedAt: z.string() })
  .openapi("Cashier");

/** The till's view: the PIN's hash and how to derive it, to check a PIN offline. */
export const DeviceCashier = z
  .object({
    id: z.string(),
    name: z.string(),
    active: z.boolean(),
    version: z.number().int(),
    pin: z
      .object({ algorithm: z.literal(PIN_ALGORITHM), iterations: z.number().int(), salt: z.string(), hash: z.string() })
      .openapi({
        description:
          "PBKDF2 with SHA-256 over the PIN's UTF-8 bytes and the salt's bytes (base64), 256 bits, in base64",
      }),
  })
  .openapi("DeviceCashier");

/** Derives a PIN's hash with a fresh 16-byte salt. */
export async function hashPin(pinText: string, iterations = PIN_ITERATIONS): Promise<PinHash> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return { iterations, salt: toBase64(salt), hash: toBase64(await derive(pinText, salt, iterations)) };
}

async function derive(pinText: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(pinText), "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256),
  );
}

export const cashierView = (row: CashierRow): z.infer<typeof Cashier> => ({
  id: row.id,
  name: row.name,
  active: row.active,
  version: row.version,
  updatedAt: row.updatedAt,
});

export const deviceCashierView = (row: CashierRow): z.infer<typeof DeviceCashier> => ({
  id: row.id,
  name: row.name,
  active: row.active,
  version: row.version,
  pin: { algorithm: PIN_ALGORITHM, iterations: row.pinIterations, salt: row.pinSalt, hash: row.pinHash },
});
