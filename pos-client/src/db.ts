import Dexie, { type EntityTable } from "dexie";

/** A sale as the cashier rang it up; `encf` is set once the receipt is numbered. */
export interface Sale {
  id: string;
  createdAt: string;
  encf?: string;
  /** The e-CF JSON document (shared package shape). */
  document: unknown;
}

/** One receipt waiting to reach the worker, in the order it was signed. */
export interface OutboxEntry {
  seq?: number;
  saleId: string;
  encf: string;
  signedXml: string;
  state: "pending" | "sent" | "rejected";
}

export class PosDatabase extends Dexie {
  sales!: EntityTable<Sale, "id">;
  outbox!: EntityTable<OutboxEntry, "seq">;

  constructor(name = "ecf-pos") {
    super(name);
    this.version(1).stores({
      sales: "id, createdAt, encf",
      outbox: "++seq, saleId, &encf, state",
    });
  }

  /**
   * Records a sale and its outbox entry in one IndexedDB transaction: either both are stored or
   * neither is, so a receipt can never be printed without being queued for sync.
   */
  async recordSignedSale(sale: Sale, entry: Omit<OutboxEntry, "seq" | "state">): Promise<number> {
    return this.transaction("rw", this.sales, this.outbox, async () => {
      await this.sales.put(sale);
      return (await this.outbox.add({ ...entry, state: "pending" })) as number;
    });
  }
}
