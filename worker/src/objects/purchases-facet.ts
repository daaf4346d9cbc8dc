// The month object's purchases facet (MonthPurchases): the e-CF received from suppliers, our
// commercial approval of them, DGII's confirmation, and the month's audit log.
import { RpcTarget } from "cloudflare:workers";
import * as purchases from "../ledger/month/month-purchases.ts";
import type { MonthPurchases } from "../ledger/month/month-rpc.ts";
import type { AuditEntry, NewPurchase, Purchase } from "../ledger/rows.ts";
import type { MonthHost } from "./month-host.ts";

export class PurchasesFacet extends RpcTarget implements MonthPurchases {
  constructor(private readonly host: MonthHost) {
    super();
  }

  addPurchase(values: NewPurchase): Purchase | null {
    return this.host.addPurchase(values);
  }
  purchaseById(id: string): Purchase | null {
    return purchases.purchaseById(this.host.db, id);
  }
  updatePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null {
    return purchases.updatePurchase(this.host.db, id, changes);
  }
  decidePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null {
    return purchases.decidePurchase(this.host.db, id, changes);
  }
  overridePurchaseConfirmation(id: string, override: { reason: string; by: string }, now: Date): Purchase | null {
    return purchases.overridePurchaseConfirmation(this.host.db, id, override, now);
  }
  deletePurchase(id: string): void {
    purchases.deletePurchase(this.host.db, id);
  }
  audit(entry: AuditEntry): void {
    this.host.audit(entry);
  }
}
