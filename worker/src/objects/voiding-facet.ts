// The issuer object's voiding facet (IssuerVoiding): what DGII voided, what a range to void holds,
// and a voiding's steps on the issuer's numbers, each in one write.
import { RpcTarget } from "cloudflare:workers";
import type { IssuerDb } from "../ledger/issuer/encf-allocation.ts";
import type { IssuerVoiding } from "../ledger/issuer/issuer-rpc.ts";
import * as voiding from "../ledger/issuer/voided-numbers.ts";

export class VoidingFacet extends RpcTarget implements IssuerVoiding {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: IssuerDb,
  ) {
    super();
  }

  voidedRangesBetween(from: string, until: string): voiding.VoidedRange[] {
    return voiding.voidedRangesBetween(this.db, from, until);
  }
  voidRangeCheck(tipoeCF: string, from: number, to: number, ownDevice?: string): voiding.VoidRangeCheck {
    return voiding.voidRangeCheck(this.db, tipoeCF, from, to, ownDevice);
  }
  givenUpCheck(deviceId: string, tipoeCF: string, number: number): voiding.GivenUpCheck {
    return voiding.givenUpCheck(this.db, deviceId, tipoeCF, number);
  }
  advance(step: voiding.VoidingStep): voiding.HeldRange[] {
    return this.storage.transactionSync(() => voiding.voidingStep(this.db, step));
  }
  numbersHandedOut(tipoeCF: string): voiding.NumbersHandedOut {
    return voiding.numbersHandedOut(this.db, tipoeCF);
  }
}
