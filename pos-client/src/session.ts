// The paired device's identity and issuer, kept in the settings store.
import { DeviceApi, type DeviceCompany, type DevicePaired } from "./api.ts";
import type { PosDatabase } from "./db.ts";
import { addLease } from "./leases.ts";
import { deleteSigningKey, installWrappedKey } from "./signing/keystore.ts";
import { newTillKeyPair } from "./signing/till-keys.ts";

export interface Session {
  deviceId: string;
  deviceName: string;
  token: string;
  company: DeviceCompany;
}

/** Where the worker is: the POS is served by it at /pos/, so the API is the same origin. */
export const API_BASE = "";

export async function loadSession(db: PosDatabase): Promise<Session | undefined> {
  const session = await db.setting<Session>("session");
  return session && { ...session, company: companyUnderCurrentNames(session.company) };
}

/** The issuer as a till paired before API 1.9.0 stored it (legalName, rnc, dgiiEnvironment), under today's names. */
type StoredCompany =
  | DeviceCompany
  | (Omit<DeviceCompany, "name" | "registryNumber" | "dgiiServer"> & {
      legalName: string;
      rnc: string;
      dgiiEnvironment: DeviceCompany["dgiiServer"];
    });
export function companyUnderCurrentNames(stored: StoredCompany): DeviceCompany {
  if ("registryNumber" in stored) return stored;
  const { legalName, rnc, dgiiEnvironment, ...rest } = stored;
  return { ...rest, name: legalName, registryNumber: rnc, dgiiServer: dgiiEnvironment };
}

export async function pairDevice(db: PosDatabase, code: string): Promise<Session> {
  const paired: DevicePaired = await new DeviceApi(API_BASE).pair(code, await newTillKeyPair(db));
  // Null for a till a manager registered, until an owner approves it: the runner fetches it then.
  if (paired.signing) await installWrappedKey(db, paired.signing);
  for (const lease of paired.leases) await addLease(db, lease);
  const session: Session = {
    deviceId: paired.device.id,
    deviceName: paired.device.name,
    token: paired.token,
    company: paired.company,
  };
  await db.setSetting("session", session);
  return session;
}

/** Tokens of earlier, revoked pairings of this till, by device id, kept until their receipts are up. */
export const RETIRED_TOKENS = "retired-tokens";

/**
 * The server said this device is revoked: the key goes at once. Receipts already signed stay in
 * the outbox and the token is kept aside to hand them over (the server accepts them from a revoked
 * device when signed before the revocation).
 */
export async function forgetDevice(db: PosDatabase, session: Session): Promise<void> {
  await deleteSigningKey(db);
  await db.transaction("rw", db.settings, async () => {
    const retired = (await db.setting<Record<string, string>>(RETIRED_TOKENS)) ?? {};
    await db.setSetting(RETIRED_TOKENS, { ...retired, [session.deviceId]: session.token });
    await db.settings.delete("session");
    await db.setSetting("revoked", true);
  });
}

/** Drops a retired token once none of its pairing's receipts waits in the outbox, and none of its shifts is open or unsent. */
export async function forgetSettledTokens(db: PosDatabase): Promise<void> {
  await db.transaction("rw", db.settings, db.outbox, db.shifts, async () => {
    const retired = (await db.setting<Record<string, string>>(RETIRED_TOKENS)) ?? {};
    if (!Object.keys(retired).length) return;
    const waiting = new Set(
      (await db.outbox.where("state").anyOf("pending", "sending").toArray()).map((e) => e.deviceId),
    );
    // A shift opened before a revocation is closed and handed over by that pairing's token.
    for (const shift of await db.shifts.filter((s) => s.state === "open" || s.sync === "pending").toArray())
      waiting.add(shift.deviceId);
    const kept = Object.fromEntries(Object.entries(retired).filter(([id]) => waiting.has(id)));
    await db.setSetting(RETIRED_TOKENS, kept);
  });
}
