// Blocks of e-NCF numbers for point-of-sale devices, cut by the issuer's ledger object from the
// same sequence the API numbers from (worker/src/ledger/encf-allocation.ts), so a block never overlaps
// another device's block nor an API receipt; each within the company's lease limits
// (ledger/lease-caps.ts). A lease that leaves a range low announces it once (range.low).
import { drIsoDate, drMonth } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { encfOf } from "../ledger/issuer/encf-allocation.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { unwrap } from "../ledger/refusal.ts";
import type { Lease, Sequence } from "../ledger/rows.ts";

export { DEFAULT_LEASE_SIZE, MAX_LEASE_SIZE } from "../ledger/issuer/encf-allocation.ts";
export type { Lease };

/** A range is low when less than a tenth of it is left (integers: remaining × 10 < size). */
export function rangeIsLow(sequence: Pick<Sequence, "rangeFrom" | "rangeTo" | "nextNumber">): boolean {
  const remaining = Math.max(0, sequence.rangeTo - sequence.nextNumber + 1);
  return remaining * 10 < sequence.rangeTo - sequence.rangeFrom + 1;
}

/** A block of up to `size` numbers, within the company's limits; a 422 when none can be had. */
export async function leaseBlock(
  env: Env,
  company: Pick<Company, "id" | "rnc" | "deviceLeaseSharePercent" | "deviceLeasesPerDay">,
  deviceId: string,
  tipoeCF: string,
  size: number,
  now: Date,
): Promise<Lease> {
  const limits = { sharePercent: company.deviceLeaseSharePercent, perDay: company.deviceLeasesPerDay };
  const ledger = issuerLedger(env, company.id);
  const lease: Lease = await unwrap(ledger.leases().lease(deviceId, tipoeCF, size, drIsoDate(now), limits));
  const sequence = (await ledger.numbering().sequences()).find((s) => s.tipoeCF === tipoeCF);
  if (
    sequence &&
    rangeIsLow(sequence) &&
    (await ledger.numbering().noticeOnce(`range.low:${tipoeCF}:${sequence.rangeTo}`))
  )
    await receiptMonth(env, company.id, drMonth(now))
      .followUp()
      .emit(company.id, `range:${tipoeCF}`, {
        type: "range.low",
        timestamp: now.toISOString(),
        data: {
          rncEmisor: company.rnc,
          tipoeCF,
          rangeTo: sequence.rangeTo,
          remaining: Math.max(0, sequence.rangeTo - sequence.nextNumber + 1),
          expiresOn: sequence.expiresOn,
        },
      });
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
