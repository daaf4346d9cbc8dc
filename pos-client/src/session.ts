// The paired device's identity and issuer, kept in the settings store.
import type { CompanyOut, PairedOut } from "./api.ts";
import { DeviceApi } from "./api.ts";
import type { PosDatabase } from "./db.ts";
import { addLease } from "./leases.ts";
import { deleteSigningKey, installSigningKey } from "./signing/keystore.ts";

export interface Session {
  deviceId: string;
  deviceName: string;
  token: string;
  company: CompanyOut;
}

/** Where the worker is: the POS is served by it at /pos/, so the API is the same origin. */
export const API_BASE = "";

export async function loadSession(db: PosDatabase): Promise<Session | undefined> {
  return db.setting<Session>("session");
}

export async function pairDevice(db: PosDatabase, code: string): Promise<Session> {
  const paired: PairedOut = await new DeviceApi(API_BASE).pair(code);
  await installSigningKey(db, paired.signing);
  for (const lease of paired.leases) await addLease(db, lease);
  const session: Session = { deviceId: paired.device.id, deviceName: paired.device.name, token: paired.token, company: paired.company };
  await db.setSetting("session", session);
  return session;
}

/** The server said this device is revoked: the key goes at once; receipts already signed stay. */
export async function forgetDevice(db: PosDatabase): Promise<void> {
  await deleteSigningKey(db);
  await db.settings.delete("session");
  await db.setSetting("revoked", true);
}
