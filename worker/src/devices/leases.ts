import { ApiProblem } from "../http/problem.ts";
import { allocateEncf, formatEncf } from "../issuing/sequences.ts";
import { drIsoDate } from "../time.ts";

/** Largest block a device may hold per request: enough for a busy day offline. */
export const MAX_LEASE_SIZE = 1000;
export const DEFAULT_LEASE_SIZE = 200;

export interface Lease {
  tipoeCF: string;
  rangeFrom: number;
  rangeTo: number;
  /** FechaVencimientoSecuencia (yyyy-MM-dd). */
  expiresOn: string;
}

/**
 * Takes a block of up to `size` numbers from the issuer's range with one conditional
 * `UPDATE … SET next_number = next_number + n … RETURNING`, the same statement shape the API's
 * own allocation uses, so a block never overlaps another device's block nor an API receipt.
 * When fewer than `size` numbers remain, the rest of the range is leased instead.
 */
export async function leaseBlock(d1: D1Database, companyId: string, deviceId: string, tipoeCF: string, size: number, now: Date): Promise<Lease> {
  const today = drIsoDate(now);
  let wanted = size;
  // Each retry follows a concurrent allocation that left fewer than `wanted` numbers.
  for (let attempt = 0; attempt < 5 && wanted > 0; attempt++) {
    const row = await d1
      .prepare(
        `UPDATE sequences SET next_number = next_number + ?3
         WHERE company_id = ?1 AND tipo_ecf = ?2 AND next_number + ?3 - 1 <= range_to AND expires_on >= ?4
         RETURNING next_number - ?3 AS rangeFrom, next_number - 1 AS rangeTo, expires_on AS expiresOn`,
      )
      .bind(companyId, tipoeCF, wanted, today)
      .first<{ rangeFrom: number; rangeTo: number; expiresOn: string }>();
    if (row) {
      const lease = { tipoeCF, ...row };
      await d1
        .prepare(`INSERT INTO device_leases (device_id, company_id, tipo_ecf, range_from, range_to, expires_on) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`)
        .bind(deviceId, companyId, tipoeCF, lease.rangeFrom, lease.rangeTo, lease.expiresOn)
        .run();
      return lease;
    }
    const left = await d1
      .prepare(`SELECT range_to - next_number + 1 AS remaining FROM sequences WHERE company_id = ?1 AND tipo_ecf = ?2 AND expires_on >= ?3`)
      .bind(companyId, tipoeCF, today)
      .first<{ remaining: number }>();
    if (!left || left.remaining <= 0) break;
    wanted = Math.min(wanted, left.remaining);
  }
  // Nothing left (or no range, or expired): let the API's allocation explain which, in its words,
  // without consuming a number (the conditional update it runs fails the same way).
  await allocateEncfExplained(d1, companyId, tipoeCF, now);
  throw new ApiProblem("conflict", { detail: `Could not lease numbers of type ${tipoeCF}; try again.` });
}

async function allocateEncfExplained(d1: D1Database, companyId: string, tipoeCF: string, now: Date): Promise<void> {
  const state = await d1
    .prepare(`SELECT next_number AS nextNumber, range_to AS rangeTo, expires_on AS expiresOn FROM sequences WHERE company_id = ?1 AND tipo_ecf = ?2`)
    .bind(companyId, tipoeCF)
    .first<{ nextNumber: number; rangeTo: number; expiresOn: string }>();
  // Only a missing, expired or exhausted range reaches here, and allocateEncf raises the matching
  // 422 for each; should numbers have appeared meanwhile, do not take one.
  if (!state || state.expiresOn < drIsoDate(now) || state.nextNumber > state.rangeTo) await allocateEncf(d1, companyId, tipoeCF, now);
}

/** The lease of this device that holds `number`, if any. */
export async function leaseHolding(d1: D1Database, deviceId: string, tipoeCF: string, number: number): Promise<Lease | null> {
  return d1
    .prepare(
      `SELECT tipo_ecf AS tipoeCF, range_from AS rangeFrom, range_to AS rangeTo, expires_on AS expiresOn FROM device_leases
       WHERE device_id = ?1 AND tipo_ecf = ?2 AND range_from <= ?3 AND range_to >= ?3 LIMIT 1`,
    )
    .bind(deviceId, tipoeCF, number)
    .first<Lease>();
}

export function leaseView(lease: Lease) {
  return { ...lease, firstEncf: formatEncf(lease.tipoeCF, lease.rangeFrom), lastEncf: formatEncf(lease.tipoeCF, lease.rangeTo) };
}
