// The month object's receipts facet (MonthReceipts): a receipt recorded, its steps with DGII as
// verbs (the object derives the row change and its follow-up: objects/month-host.ts), and the reads
// issuing, voiding and approvals make.
import { RpcTarget } from "cloudflare:workers";
import * as receipts from "../ledger/month/month-receipts.ts";
import type { ContingencyRecord, MonthReceipts, Recorded } from "../ledger/month/month-rpc.ts";
import type { ReceiptStep } from "../ledger/month/receipt-steps.ts";
import type { NewReceipt, Receipt } from "../ledger/rows.ts";
import type { EventType } from "../webhooks/events.ts";
import type { NewTask } from "../ledger/month/task-types.ts";
import type { MonthHost } from "./month-host.ts";

export class ReceiptsFacet extends RpcTarget implements MonthReceipts {
  constructor(private readonly host: MonthHost) {
    super();
  }

  record(values: NewReceipt, followUp?: NewTask[]): Recorded {
    return this.host.record(values, followUp);
  }
  recordInContingency(values: NewReceipt, dgiiMensajes: string, options?: ContingencyRecord): Promise<Recorded> {
    return this.host.recordInContingency(values, dgiiMensajes, options);
  }
  recordForAlarm(rows: NewReceipt[]): Recorded[] {
    return this.host.recordForAlarm(rows);
  }
  receipt(encf: string): Receipt | null {
    return receipts.receiptOf(this.host.db, encf);
  }
  receiptsByEncf(encfs: string[]): Receipt[] {
    return receipts.receiptsByEncf(this.host.db, encfs);
  }
  advance(id: string, step: ReceiptStep, subscribedEvents?: readonly EventType[]): Receipt {
    return this.host.advance(id, step, subscribedEvents);
  }
  claim(id: string): Receipt | null {
    return this.host.claim(id, new Date());
  }
  release(id: string): Receipt | null {
    return this.host.release(id);
  }
  receiptsIn(tipoeCF: string, desde: string, hasta: string): Receipt[] {
    return receipts.receiptsIn(this.host.db, tipoeCF, desde, hasta);
  }
  markVoided(ids: string[]): number {
    return receipts.markVoided(this.host.db, ids);
  }
  recordApproval(id: string, approval: { approvalStatus: string; approvalReason: string | null; approvalAt: string }) {
    this.host.recordApproval(id, approval);
  }
  heldIn(tipoeCF: string, runs: [number, number][]): [number, number][] {
    return receipts.heldIn(this.host.db, tipoeCF, runs);
  }
  acceptedNotesOf(encf: string): Receipt[] {
    return receipts.acceptedNotesOf(this.host.db, encf);
  }
}
