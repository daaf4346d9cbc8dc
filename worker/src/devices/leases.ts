// Blocks of e-NCF numbers for point-of-sale devices, cut by the issuer's ledger object from the
// same sequence the API numbers from (worker/src/ledger/issuer/encf-allocation.ts), so a block never overlaps
// another device's block nor an API receipt.
import { drIsoDate } from "@ecf/shared";
import { encfOf } from "../ledger/issuer/encf-allocation.ts";
import { issuerLedger } from "../ledger/client.ts";
import { unwrap } from "../ledger/refusal.ts";
import type { Lease } from "../ledger/rows.ts";

export { DEFAULT_LEASE_SIZE, MAX_LEASE_SIZE } from "../ledger/issuer/encf-allocation.ts";
export type { Lease };

/** A block of up to `size` numbers (the rest of the range when fewer remain); a 422 when none can be had. */
export async function leaseBlock(
  env: Env,
  companyId: string,
  deviceId: string,
  tipoeCF: string,
  size: number,
  now: Date,
): Promise<Lease> {
  const lease: Lease = await unwrap(
    issuerLedger(env, companyId).leases().lease(deviceId, tipoeCF, size, drIsoDate(now)),
  );
  return lease;
}

/** Every block a device was given, oldest first. */
export function currentLeases(env: Env, companyId: string, deviceId: string): Promise<Lease[]> {
  return issuerLedger(env, companyId).leases().leasesOf(deviceId);
}

export function leaseView(lease: Lease) {
  return {
    ...lease,
    firstEncf: encfOf(lease.tipoeCF, lease.rangeFrom),
    lastEncf: encfOf(lease.tipoeCF, lease.rangeTo),
  };
}
