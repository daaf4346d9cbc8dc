// A cashier of the issuer's tills. The PIN is kept only as a hash, shipped to the paired tills so a
// cashier signs in offline: the till derives the same hash (@ecf/shared/pin-kdf). New PINs are
// hashed with scrypt; PINs set before it keep their PBKDF2-SHA256 hash until changed.
import { z } from "@hono/zod-openapi";
import { hashPin as scryptHash, PIN_SCRYPT } from "@ecf/shared/pin-kdf";
import type { CashierRow, PinHash } from "../ledger/issuer/catalog-rows.ts";

/**
 * At least 6 digits: the hash goes to every paired till, so a stolen till allows an offline
 * search of the whole space; 10^6 PINs instead of 10^4 (docs/security.md). PINs set before this
 * rule keep working until changed.
 */
export const PIN_PATTERN = /^\d{6,12}$/;
const pin = z
  .string()
  .regex(PIN_PATTERN, "pin must be 6 to 12 digits")
  .openapi({ description: "6 to 12 digits; kept only as a scrypt hash", example: "482193" });
const name = z.string().trim().min(1).max(60).openapi({ example: "María Pérez" });

export const CashierInput = z.object({ name, pin }).strict().openapi("CashierInput");
export const CashierPatch = z.object({ name, pin, active: z.boolean() }).partial().strict().openapi("CashierPatch");

/** The issuer's view: no PIN material (the issuer sets a PIN, it never reads one back). */
export const Cashier = z
  .object({ id: z.string(), name: z.string(), active: z.boolean(), version: z.number().int(), updatedAt: z.string() })
  .openapi("Cashier");

const ScryptPin = z
  .object({
    algorithm: z.literal("scrypt"),
    N: z.number().int(),
    r: z.number().int(),
    p: z.number().int(),
    salt: z.string(),
    hash: z.string(),
  })
  .openapi("ScryptPin", {
    description: "scrypt (N, r, p) over the PIN's UTF-8 bytes and the salt's bytes (base64), 32 bytes, in base64",
  });
const Pbkdf2Pin = z
  .object({ algorithm: z.literal("PBKDF2-SHA256"), iterations: z.number().int(), salt: z.string(), hash: z.string() })
  .openapi("Pbkdf2Pin", {
    description:
      "A PIN set before scrypt: PBKDF2 with SHA-256 over the PIN's UTF-8 bytes and the salt's bytes (base64), 256 bits, in base64",
  });

/** The till's view: the PIN's hash and how to derive it, to check a PIN offline. */
export const DeviceCashier = z
  .object({
    id: z.string(),
    name: z.string(),
    active: z.boolean(),
    version: z.number().int(),
    pin: z.discriminatedUnion("algorithm", [ScryptPin, Pbkdf2Pin]),
  })
  .openapi("DeviceCashier");

/** Hashes a new PIN with scrypt at today's cost (PIN_SCRYPT), in the ledger's columns. */
export async function hashPin(pinText: string, params: { N: number; r: number; p: number } = PIN_SCRYPT) {
  const { N, r, p, salt, hash } = await scryptHash(pinText, params);
  return { iterations: N, salt, hash: `scrypt:${N}:${r}:${p}:${hash}` } satisfies PinHash;
}

/** The hash as the till reads it: scrypt when written so, otherwise a PBKDF2 hash of before. */
export function pinOfRow(row: Pick<CashierRow, "pinIterations" | "pinSalt" | "pinHash">) {
  const scrypt = /^scrypt:(\d+):(\d+):(\d+):(.+)$/.exec(row.pinHash);
  if (scrypt) {
    const [, N, r, p, hash] = scrypt;
    return { algorithm: "scrypt" as const, N: Number(N), r: Number(r), p: Number(p), salt: row.pinSalt, hash: hash! };
  }
  return { algorithm: "PBKDF2-SHA256" as const, iterations: row.pinIterations, salt: row.pinSalt, hash: row.pinHash };
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
  pin: pinOfRow(row),
});
