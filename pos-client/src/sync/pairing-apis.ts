// A till paired again after a revocation still holds what it made under the earlier pairing:
// receipts it signed and shifts it opened then. They go up with that pairing's own token (kept
// when it was revoked, see session.ts): the server takes from a revoked device what it made before
// the revocation, nothing after. This module picks the API to use for each.
import type { PosDatabase } from "../db.ts";
import { RETIRED_TOKENS, type Session } from "../session.ts";

/** The API as the pairing `deviceId` names (undefined or this pairing: the current one). */
export type ApiOfPairing<Api> = (deviceId: string | undefined) => Api;

/** Reads the kept tokens once; an API per earlier pairing is made on first use. */
export async function pairingApis<Api>(
  db: PosDatabase,
  session: Pick<Session, "deviceId">,
  current: Api,
  connect: (token: string) => Api,
): Promise<ApiOfPairing<Api>> {
  const retired = (await db.setting<Record<string, string>>(RETIRED_TOKENS)) ?? {};
  const apis = new Map<string, Api>();
  return (deviceId) => {
    const token = deviceId && deviceId !== session.deviceId ? retired[deviceId] : undefined;
    if (!token) return current;
    if (!apis.has(token)) apis.set(token, connect(token));
    return apis.get(token)!;
  };
}
