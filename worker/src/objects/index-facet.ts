// The issuer object's index facet (IssuerIndex): which month object holds a receipt or a
// purchase, and which months hold anything at all.
import { RpcTarget } from "cloudflare:workers";
import type { IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import type { IssuerIndex } from "../ledger/issuer/issuer-rpc.ts";
import * as index from "../ledger/issuer/receipt-index.ts";

export class IndexFacet extends RpcTarget implements IssuerIndex {
  constructor(private readonly db: IssuerDb) {
    super();
  }

  monthOf(encf: string): string | null {
    return index.monthOfEncf(this.db, encf);
  }
  monthsOf(encfs: string[]): (string | null)[] {
    return index.monthsOfEncfs(this.db, encfs);
  }
  months(from?: string, until?: string): string[] {
    return index.months(this.db, from, until);
  }
  noteMonth(month: string): void {
    index.noteMonth(this.db, month);
  }
  registerPurchase(rncEmisor: string, encf: string, month: string): string {
    return index.registerPurchase(this.db, rncEmisor, encf, month);
  }
  forgetPurchase(rncEmisor: string, encf: string): void {
    index.forgetPurchase(this.db, rncEmisor, encf);
  }
}
