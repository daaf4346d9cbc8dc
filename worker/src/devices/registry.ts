// A point-of-sale device's life in the directory: created with a one-time pairing code, paired
// (its token, the signing material, its first e-NCF blocks), revoked.
import { POS_TIPOS } from "@ecf/shared";
import { and, eq, gt, isNotNull, isNull } from "drizzle-orm";
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
import { handOverKey, keyMayGo } from "./custody.ts";
import { tillPublicKey, type WrappedKey } from "./key-wrapping.ts";

export type DeviceRow = typeof devices.$inferSelect;

export interface CreatedDevice {
  id: string;
  name: string;
  pairingCode: string;
  pairingExpiresAt: string;
  note: string;
}

/** The issuer's key wrapped to the till's own public key (devices/key-wrapping.ts), and its certificate. */
export interface SigningMaterial extends WrappedKey {
  certificate: string;
  certificateSerial: string | null;
  signatureExpirationDate: string | null;
}

/**
 * A device waiting for its till: the one-time pairing code is shown once (only its hash is kept).
 * `by` says who registered it and whether its key waits for an owner (devices/custody.ts).
 */
export async function createDevice(
  d1: D1Database,
  companyId: string,
  name: string,
  by: { createdBy: string; keyApproval: "pending" | "not_needed" },
  now: Date,
): Promise<CreatedDevice> {
  const pairingCode = newPairingCode();
  const pairingExpiresAt = new Date(now.getTime() + PAIRING_TTL_MS).toISOString();
  const id = newDeviceId();
  const pairingCodeHash = await hashPairingCode(pairingCode);
  await database(d1)
    .insert(devices)
    .values({ id, companyId, name, pairingCodeHash, pairingExpiresAt, ...by });
  const note =
    by.keyApproval === "pending"
      ? "Type the pairing code on the till within 15 minutes; it works once. The till receives the signing key once an owner approves it."
      : "Type the pairing code on the till within 15 minutes; it works once.";
  return { id, name, pairingCode, pairingExpiresAt, note };
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

/** Who is fetching the key, for the audit log. */
export interface HandoverContext {
  action: string;
  requestId: string;
  now: Date;
}

/**
 * The key for a paired till, once: against a re-key code someone at the issuer asked for (one
 * conditional update consumes it: of two attempts, one wins), or, without a code, the first fetch
 * after an owner approved the till. Either way it travels wrapped to the public key the till sent
 * at pairing, never to one in this request: a stolen device token alone never yields the key.
 */
export async function signingMaterialFor(
  env: Env,
  company: Company,
  deviceId: string,
  pairingCode: string | undefined,
  context: HandoverContext,
): Promise<SigningMaterial> {
  const consent = pairingCode
    ? and(
        eq(devices.pairingCodeHash, await hashPairingCode(pairingCode)),
        gt(devices.pairingExpiresAt, context.now.toISOString()),
      )
    : and(eq(devices.keyApproval, "granted"), isNull(devices.keyHandedOverAt));
  const [consumed] = await database(env.DB)
    .update(devices)
    .set(
      pairingCode ? { pairingCodeHash: null, pairingExpiresAt: null } : { keyHandedOverAt: context.now.toISOString() },
    )
    .where(and(eq(devices.id, deviceId), isNull(devices.revokedAt), consent))
    .returning();
  if (!consumed && !pairingCode)
    throw new ApiProblem("forbidden", {
      detail:
        "Without a code the key comes once, after an owner approved this till; ask the issuer for a code (POST /tills/{id}/pairing-code).",
      errors: [{ path: "/pairingCode", code: "pairing_code_required", message: "A one-time code is needed." }],
    });
  if (!consumed) {
    const detail =
      "This code is unknown, was already used, or has expired; ask the issuer for a new one (POST /tills/{id}/pairing-code).";
    throw new ApiProblem("forbidden", {
      detail,
      errors: [{ path: "/pairingCode", code: "pairing_code_invalid", message: detail }],
    });
  }
  return signingMaterial(env, company, consumed, { ...context, actor: `device:${deviceId}` });
}

/** What a paired till signs with: the issuer's key, wrapped to the till, and its certificate. */
async function signingMaterial(
  env: Env,
  company: Company,
  device: DeviceRow,
  context: HandoverContext & { actor: string },
): Promise<SigningMaterial> {
  const { wrapped, certificate } = await handOverKey(env, company, device, context);
  return {
    ...wrapped,
    certificate,
    certificateSerial: company.certificateSerial,
    signatureExpirationDate: company.certificateNotAfter,
  };
}

/**
 * Pairs a till with its one-time code: one conditional update consumes the code (of two
 * concurrent attempts, one wins) and keeps the till's public key; then the till gets its token, a
 * block of numbers for each type it issues that has an authorised range and, when its key may go
 * (devices/custody.ts), the signing material wrapped to that public key; else `signing` is null
 * and the till fetches it once an owner approved it (POST /devices/signing-material).
 */
export async function pairDevice(
  env: Env,
  request: { pairingCode: string; publicKey?: string | undefined },
  context: HandoverContext,
): Promise<{ device: DeviceRow; token: string; company: Company; signing: SigningMaterial | null; leases: Lease[] }> {
  if (request.publicKey) await tillPublicKey(request.publicKey);
  const token = newDeviceToken();
  const db = database(env.DB);
  const now = context.now.toISOString();
  const [device] = await db
    .update(devices)
    .set({
      pairingCodeHash: null,
      pairingExpiresAt: null,
      tokenHash: await hashDeviceToken(token),
      pairedAt: now,
      lastSeenAt: now,
      tillPublicKey: request.publicKey ?? null,
    })
    .where(
      and(
        eq(devices.pairingCodeHash, await hashPairingCode(request.pairingCode)),
        isNull(devices.revokedAt),
        isNull(devices.tokenHash),
        gt(devices.pairingExpiresAt, now),
      ),
    )
    .returning();
  if (!device)
    throw new ApiProblem("unauthorized", {
      detail: "This pairing code is unknown, was already used, or has expired; ask for a new one.",
    });
  const company = await db.query.companies.findFirst({ where: eq(companies.id, device.companyId) });
  if (!company?.isActive) throw new ApiProblem("forbidden", { detail: "The issuer of this device is not active." });
  const signing = keyMayGo(device)
    ? await signingMaterial(env, company, device, { ...context, actor: `device:${device.id}` })
    : null;
  return { device, token, company, signing, leases: await firstLeases(env, company, device.id, context.now) };
}

async function firstLeases(env: Env, company: Company, deviceId: string, now: Date): Promise<Lease[]> {
  const leases: Lease[] = [];
  for (const tipo of POS_TIPOS) {
    try {
      leases.push(await leaseBlock(env, company, deviceId, tipo, DEFAULT_LEASE_SIZE, now));
    } catch (error) {
      // A type without an authorised range is simply not offered on this till.
      if (!(error instanceof Refused && error.refusal.kind === "not_allowed")) throw error;
    }
  }
  return leases;
}
