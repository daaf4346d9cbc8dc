// A point-of-sale device's life in the directory: created with a one-time pairing code, paired
// (its token, the signing material, its first e-NCF blocks), revoked.
import { POS_TIPOS, toBase64 } from "@ecf/shared";
import { and, eq, gt, isNotNull, isNull } from "drizzle-orm";
import { openPrivateKey } from "../certificates/vault.ts";
import { database } from "../db/client.ts";
import { companies, type Company } from "../db/tables.ts";
import { devices } from "../db/devices-tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { Refused } from "../errors/refusal.ts";
import {
  hashDeviceToken,
  hashPairingCode,
  newDeviceId,
  newDeviceToken,
  newPairingCode,
  PAIRING_TTL_MS,
} from "./credentials.ts";
import { DEFAULT_LEASE_SIZE, leaseBlock, type Lease } from "./leases.ts";

export type DeviceRow = typeof devices.$inferSelect;

export interface CreatedDevice {
  id: string;
  name: string;
  pairingCode: string;
  pairingExpiresAt: string;
  note: string;
}

export interface SigningMaterial {
  pkcs8: string;
  certificate: string;
  certificateSerial: string | null;
  signatureExpirationDate: string | null;
}

/** A device waiting for its till: the one-time pairing code is shown once (only its hash is kept). */
export async function createDevice(d1: D1Database, companyId: string, name: string, now: Date): Promise<CreatedDevice> {
  const pairingCode = newPairingCode();
  const pairingExpiresAt = new Date(now.getTime() + PAIRING_TTL_MS).toISOString();
  const id = newDeviceId();
  await database(d1)
    .insert(devices)
    .values({ id, companyId, name, pairingCodeHash: await hashPairingCode(pairingCode), pairingExpiresAt });
  return {
    id,
    name,
    pairingCode,
    pairingExpiresAt,
    note: "Type the pairing code on the till within 15 minutes; it works once.",
  };
}

/** Revokes a device (of `companyId`, or any for the administration API); revoking twice is a no-op. */
export async function revokeDevice(
  d1: D1Database,
  id: string,
  companyId: string | null,
  now: Date,
): Promise<DeviceRow> {
  const db = database(d1);
  const where = companyId ? and(eq(devices.id, id), eq(devices.companyId, companyId)) : eq(devices.id, id);
  const device = await db.query.devices.findFirst({ where });
  if (!device) throw new ApiProblem("not_found", { detail: `No device ${id}.` });
  if (device.revokedAt) return device;
  // The pairing code dies with the device: a revoked till cannot be paired with an old code.
  const [row] = await db
    .update(devices)
    .set({ revokedAt: now.toISOString(), pairingCodeHash: null })
    .where(eq(devices.id, id))
    .returning();
  return row!;
}

/**
 * A fresh one-time code for a paired till to fetch the issuer's new signing material (after a
 * certificate change): the key leaves the service only against a code someone at the issuer
 * asked for minutes before, never on a device token alone. It cannot pair another till (pairing
 * needs a device without a token).
 */
export async function newRekeyCode(d1: D1Database, id: string, companyId: string, now: Date): Promise<CreatedDevice> {
  const pairingCode = newPairingCode();
  const pairingExpiresAt = new Date(now.getTime() + PAIRING_TTL_MS).toISOString();
  const [device] = await database(d1)
    .update(devices)
    .set({ pairingCodeHash: await hashPairingCode(pairingCode), pairingExpiresAt })
    .where(
      and(
        eq(devices.id, id),
        eq(devices.companyId, companyId),
        isNull(devices.revokedAt),
        isNotNull(devices.tokenHash),
      ),
    )
    .returning();
  if (!device) throw new ApiProblem("not_found", { detail: `No paired, unrevoked device ${id}.` });
  const note = "Type this code on the till within 15 minutes to give it the new signing key; it works once.";
  return { id, name: device.name, pairingCode, pairingExpiresAt, note };
}

/** Consumes a device's re-key code (one conditional update: of two attempts, one wins), then the material. */
export async function signingMaterialForCode(
  env: Env,
  company: Company,
  deviceId: string,
  pairingCode: string,
  now: Date,
): Promise<SigningMaterial> {
  const [consumed] = await database(env.DB)
    .update(devices)
    .set({ pairingCodeHash: null, pairingExpiresAt: null })
    .where(
      and(
        eq(devices.id, deviceId),
        eq(devices.pairingCodeHash, await hashPairingCode(pairingCode)),
        isNull(devices.revokedAt),
        gt(devices.pairingExpiresAt, now.toISOString()),
      ),
    )
    .returning({ id: devices.id });
  if (!consumed) {
    const detail =
      "This code is unknown, was already used, or has expired; ask the issuer for a new one (POST /devices/{id}/pairing-code).";
    throw new ApiProblem("forbidden", {
      detail,
      errors: [{ path: "/pairingCode", code: "pairing_code_invalid", message: detail }],
    });
  }
  return signingMaterial(env, company);
}

/** What a paired till signs with: the issuer's key and certificate (at pairing, or against a re-key code). */
export async function signingMaterial(env: Env, company: Company): Promise<SigningMaterial> {
  if (!company.certificateKeyEncrypted || !company.certificateDer) {
    throw new ApiProblem("unprocessable", {
      detail: `Issuer ${company.rnc} has no signing certificate yet; upload one before pairing a till.`,
    });
  }
  const pkcs8 = await openPrivateKey(company.certificateKeyEncrypted, env.MASTER_KEY, company.id);
  return {
    pkcs8: toBase64(pkcs8),
    certificate: company.certificateDer,
    certificateSerial: company.certificateSerial,
    signatureExpirationDate: company.certificateNotAfter,
  };
}

/**
 * Pairs a till with its one-time code: one conditional update consumes the code (of two
 * concurrent attempts, one wins), then the till gets its token, the signing material and a block
 * of numbers for each type it issues that has an authorised range.
 */
export async function pairDevice(
  env: Env,
  pairingCode: string,
  now: Date,
): Promise<{ device: DeviceRow; token: string; company: Company; signing: SigningMaterial; leases: Lease[] }> {
  const token = newDeviceToken();
  const db = database(env.DB);
  // One conditional update consumes the code: of two concurrent attempts, one wins.
  const [device] = await db
    .update(devices)
    .set({
      pairingCodeHash: null,
      pairingExpiresAt: null,
      tokenHash: await hashDeviceToken(token),
      pairedAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
    })
    .where(
      and(
        eq(devices.pairingCodeHash, await hashPairingCode(pairingCode)),
        isNull(devices.revokedAt),
        isNull(devices.tokenHash),
        gt(devices.pairingExpiresAt, now.toISOString()),
      ),
    )
    .returning();
  if (!device)
    throw new ApiProblem("unauthorized", {
      detail: "This pairing code is unknown, was already used, or has expired; ask for a new one.",
    });
  const company = await db.query.companies.findFirst({ where: eq(companies.id, device.companyId) });
  if (!company?.isActive) throw new ApiProblem("forbidden", { detail: "The issuer of this device is not active." });
  const signing = await signingMaterial(env, company);
  const leases: Lease[] = [];
  for (const tipo of POS_TIPOS) {
    try {
      leases.push(await leaseBlock(env, company.id, device.id, tipo, DEFAULT_LEASE_SIZE, now));
    } catch (error) {
      // A type without an authorised range is simply not offered on this till.
      if (!(error instanceof Refused && error.refusal.kind === "not_allowed")) throw error;
    }
  }
  return { device, token, company, signing, leases };
}
