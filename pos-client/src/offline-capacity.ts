// How many e-NCF numbers this till must hold to keep selling offline for a day: measured on its
// own sales (a busy supermarket till and a quiet colmado need very different stocks), refilled
// while it has a connection, with a warning when only a fifth of that stock is left.
import { DEFAULT_LEASE_SIZE } from "@ecf/shared/pos-device";
import type { PosDatabase } from "./db.ts";
import { remaining } from "./leases.ts";

export interface CapacitySettings {
  /** Hours the till must be able to sell without a connection (a day by default). */
  offlineHours: number;
  /** Days of this till's own sales the rate is measured over. */
  rateWindowDays: number;
}

export const DEFAULT_CAPACITY: CapacitySettings = { offlineHours: 24, rateWindowDays: 7 };
/** The setting (IndexedDB) an issuer's technician may change per till. */
export const CAPACITY_SETTING = "offline-capacity";
/** Below this share of the stock a day offline needs, the till warns. */
export const LOW_SHARE = 0.2;

const HOUR = 3_600_000;

export async function capacitySettings(db: PosDatabase): Promise<CapacitySettings> {
  return { ...DEFAULT_CAPACITY, ...((await db.setting<Partial<CapacitySettings>>(CAPACITY_SETTING)) ?? {}) };
}

/**
 * Numbers of a type this till used per hour over the window: the sales it numbered, over the hours
 * from the first of them (or the window's start) to now, at least one hour.
 */
export async function numbersPerHour(db: PosDatabase, tipoeCF: string, now: Date, windowDays: number): Promise<number> {
  const since = new Date(now.getTime() - windowDays * 24 * HOUR).toISOString();
  const sales = await db.sales
    .filter((s) => s.createdAt >= since && s.encf?.startsWith(`E${tipoeCF}`) === true)
    .toArray();
  if (!sales.length) return 0;
  const first = sales.reduce((a, s) => Math.min(a, Date.parse(s.createdAt)), now.getTime());
  const hours = Math.max(1, (now.getTime() - first) / HOUR);
  return sales.length / hours;
}

/** The stock of a type this till needs for its offline time: never less than half a default block. */
export async function stockNeeded(
  db: PosDatabase,
  tipoeCF: string,
  now: Date,
  settings?: CapacitySettings,
): Promise<number> {
  const s = settings ?? (await capacitySettings(db));
  const rate = await numbersPerHour(db, tipoeCF, now, s.rateWindowDays);
  return Math.max(DEFAULT_LEASE_SIZE / 2, Math.ceil(rate * s.offlineHours));
}

export interface TypeStock {
  tipoeCF: string;
  remaining: number;
  needed: number;
  /** A fifth or less of what a day offline needs is left. */
  low: boolean;
}

export async function stockOf(db: PosDatabase, tipoeCF: string, now: Date, today: string): Promise<TypeStock> {
  const needed = await stockNeeded(db, tipoeCF, now);
  const left = await remaining(db, tipoeCF, today);
  return {
    tipoeCF,
    remaining: left,
    needed,
    low: left <= Math.floor(Math.max(needed, DEFAULT_LEASE_SIZE) * LOW_SHARE),
  };
}
