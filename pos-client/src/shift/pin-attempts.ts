// Wrong PINs on this till, per cashier, kept in IndexedDB (a reload does not reset them): after
// FREE_ATTEMPTS failures each further try waits a delay that doubles, up to MAX_DELAY_MS. Someone
// at the till cannot try the PIN space by hand; a thief who copies the database still can
// (docs/security.md), which is why PINs are at least 6 digits.
import type { PosDatabase } from "../db.ts";

export const FREE_ATTEMPTS = 3;
export const FIRST_DELAY_MS = 30_000;
export const MAX_DELAY_MS = 60 * 60_000;
const SETTING = "pin-failures";

interface Failures {
  count: number;
  /** When the last failure happened (ms since the epoch). */
  at: number;
}

/** How long after its last failure a cashier must wait before the next try (0: may try now). */
export function delayAfter(count: number): number {
  if (count < FREE_ATTEMPTS) return 0;
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (count - FREE_ATTEMPTS));
}

async function failuresOf(db: PosDatabase, cashierId: string): Promise<Failures | undefined> {
  return (await db.setting<Record<string, Failures>>(SETTING))?.[cashierId];
}

/** Milliseconds until this cashier may type a PIN again (0: now). */
export async function pinWaitMs(db: PosDatabase, cashierId: string, now: number): Promise<number> {
  const failures = await failuresOf(db, cashierId);
  if (!failures) return 0;
  return Math.max(0, failures.at + delayAfter(failures.count) - now);
}

export async function recordPinFailure(db: PosDatabase, cashierId: string, now: number): Promise<number> {
  return db.transaction("rw", db.settings, async () => {
    const all = (await db.setting<Record<string, Failures>>(SETTING)) ?? {};
    const count = (all[cashierId]?.count ?? 0) + 1;
    await db.setSetting(SETTING, { ...all, [cashierId]: { count, at: now } });
    return count;
  });
}

export async function clearPinFailures(db: PosDatabase, cashierId: string): Promise<void> {
  await db.transaction("rw", db.settings, async () => {
    const all = (await db.setting<Record<string, Failures>>(SETTING)) ?? {};
    if (!(cashierId in all)) return;
    const { [cashierId]: _, ...rest } = all;
    await db.setSetting(SETTING, rest);
  });
}
