// What one till may lease, so that no till can take a whole range and leave the API without
// numbers: each lease takes at most a share of the numbers left in the range, and a till takes at
// most so many leases of a type a day. The last numbers of a range, where the share rounds to
// nothing, stay the API's. Both limits are the company's settings (companies.device_lease_*).
import { and, count, eq, gt } from "drizzle-orm";
import { refuse } from "../../errors/refusal.ts";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { deviceLeases } from "./issuer-tables.ts";
import type * as issuerTables from "./issuer-tables.ts";

type IssuerDb = DrizzleSqliteDODatabase<typeof issuerTables>;

export interface LeaseLimits {
  /** A lease takes at most this share (%) of the numbers left in the range. */
  sharePercent: number;
  /** A device takes at most this many leases of one type in 24 hours. */
  perDay: number;
}

export const DEFAULT_LEASE_LIMITS: LeaseLimits = { sharePercent: 25, perDay: 20 };
const DAY_MS = 86_400_000;

/** The size this device may lease now, at most `size`; refused when it may lease none. */
export function cappedLeaseSize(
  db: IssuerDb,
  deviceId: string,
  tipoeCF: string,
  size: number,
  remaining: number,
  limits: LeaseLimits,
  now: Date,
): number {
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const [taken] = db
    .select({ n: count() })
    .from(deviceLeases)
    .where(
      and(eq(deviceLeases.deviceId, deviceId), eq(deviceLeases.tipoeCF, tipoeCF), gt(deviceLeases.createdAt, since)),
    )
    .all();
  const path = "/tipoeCF";
  if ((taken?.n ?? 0) >= limits.perDay)
    throw refuse("not_allowed", {
      detail: `This till took ${limits.perDay} leases of type ${tipoeCF} in the last 24 hours, the company's limit.`,
      errors: [{ path, code: "lease_cap_reached", message: `At most ${limits.perDay} leases a day.` }],
      retryAfter: 3600,
    });
  // Integer arithmetic: the share of what is left, rounded down.
  const share = Math.floor((remaining * limits.sharePercent) / 100);
  if (share < 1)
    throw refuse("not_allowed", {
      detail: `Only ${remaining} numbers of type ${tipoeCF} are left: they stay for the API; request a new range from DGII.`,
      errors: [{ path, code: "lease_share_reached", message: "The range's last numbers are not leased." }],
    });
  return Math.min(size, share);
}
