// The issuer object's facet for point-of-sale devices (IssuerLeases): blocks of numbers leased to
// a till, and the receipts it signed offline admitted against them (counted once, indexed).
import { RpcTarget } from "cloudflare:workers";
import { leaseBlock, type IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import type { LeaseLimits } from "../ledger/issuer/lease-caps.ts";
import type { IssuerLeases } from "../ledger/issuer/issuer-rpc.ts";
import * as numbering from "../ledger/issuer/receipt-numbering.ts";
import { refusalsAsData, type LedgerResult } from "../ledger/refusal.ts";
import type { Lease } from "../ledger/rows.ts";

export class LeasesFacet extends RpcTarget implements IssuerLeases {
  constructor(private readonly db: IssuerDb) {
    super();
  }

  lease(deviceId: string, tipoeCF: string, size: number, today: string, limits?: LeaseLimits): LedgerResult<Lease> {
    return refusalsAsData(() => leaseBlock(this.db, deviceId, tipoeCF, size, today, new Date(), limits));
  }
  leasesOf(deviceId: string): Lease[] {
    return numbering.leasesOf(this.db, deviceId);
  }
  admitDeviceReceipt(deviceId: string, tipoeCF: string, number: number, month: string, quotaMonth: string) {
    return numbering.admitDeviceReceipt(this.db, deviceId, { tipoeCF, number, month }, quotaMonth);
  }
  admitDeviceReceipts(
    deviceId: string,
    receipts: { tipoeCF: string; number: number; month: string }[],
    quotaMonth: string,
  ) {
    return numbering.admitDeviceReceipts(this.db, deviceId, receipts, quotaMonth);
  }
}
