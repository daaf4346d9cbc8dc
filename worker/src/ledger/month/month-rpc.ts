// What the worker may ask of a ReceiptMonth object (objects/receipt-month.ts implements it): the
// worker side (ledger/client.ts) types its stubs with these interfaces, so no module imports the
// object class. The object's surface is its facets, each an RpcTarget (objects/*-facet.ts) that a
// call reaches by pipelining, in one round trip: `receiptMonth(env, id, month).receipts().record(values)`.
// Every method runs inside the object, in one synchronous step unless it is async.
import type { EmailQueueing } from "./email-limits.ts";
import type { EventType } from "@ecf/shared/webhook-events";
import type { NewTask, WebhookEvent } from "./task-types.ts";
import type { ReportName, ReportSlice, ReportSliceQuery } from "./report-specs.ts";
import type { NewShift, PutShiftOutcome, Shift, ShiftSliceQuery } from "./shift-rows.ts";
import type { BenchRowsSpec, MonthRows } from "./month-import.ts";
import type { PurchasesHead } from "./purchases-head-shape.ts";
import type { SalesHead } from "./month-sales-head.ts";
import type { WebhookDelivery } from "./month-tasks.ts";
import type * as monthly from "./monthly-rows.ts";
import type { ReceiptStep } from "./receipt-steps.ts";
import type { AuditEntry, NewPurchase, NewReceipt, Purchase, Receipt } from "./month-row-types.ts";

/** A receipt recorded, or the one already recorded under its e-NCF. */
export interface Recorded {
  receipt: Receipt;
  existed: boolean;
}

/** One receipt to record in contingency, with DGII's messages and what its request knows. */
export interface ContingencyEntry {
  values: NewReceipt;
  dgiiMensajes: string;
  options?: ContingencyRecord;
}

/** What a request knows beside a receipt it records in contingency. */
export interface ContingencyRecord {
  /** The request's audit entry, written in the same transaction. */
  audit?: AuditEntry;
  /** The event types some endpoint hearing the issuer listens for (unset: every event). */
  subscribedEvents?: readonly EventType[];
  /** Until when the status answer that said DGII is down is reused (epoch ms). */
  dgiiDownUntil?: number;
  /** Follow-up work the receipt owes (an exchanged E32's credit note), queued with it. */
  followUp?: NewTask[];
}

export interface MonthRpc extends Rpc.DurableObjectBranded {
  /** The month's receipts and their steps with DGII. */
  receipts(): MonthReceipts;
  /** Purchases (received e-CF) and the audit log. */
  purchases(): MonthPurchases;
  /** Reports, the monthly formats (606/607/608) and shifts. */
  reports(): MonthReports;
  /** Follow-up work: e-mails, webhook events and their deliveries. */
  followUp(): MonthFollowUp;
  /** Maintenance, off this surface: moving rows from D1, the bench's synthetic months. */
  maintenance(): MonthMaintenance;
}

/** Receipts (objects/receipts-facet.ts). */
export interface MonthReceipts extends Rpc.RpcTargetBranded {
  /** Records a receipt held by its request for CLAIM_MS while it transmits; the alarm sends it if the request dies. */
  record(values: NewReceipt, followUp?: NewTask[]): Recorded;
  /**
   * Records a receipt DGII cannot take now: in contingency at once, due for the alarm after the first back-off.
   * Committed with the others that arrive meanwhile (ledger/commit-group.ts).
   */
  recordInContingency(values: NewReceipt, dgiiMensajes: string, options?: ContingencyRecord): Promise<Recorded>;
  /** Records a till's batch, in order, due at once for the alarm. */
  recordForAlarm(rows: NewReceipt[]): Recorded[];
  receipt(encf: string): Receipt | null;
  /** The receipts of these e-NCF that are here (in no particular order). */
  receiptsByEncf(encfs: string[]): Receipt[];
  /**
   * A receipt's step with DGII: the object derives the row change and what it leads to (events,
   * delivery to the buyer), written in the same step (after-dgii/follow-up.ts).
   */
  advance(id: string, step: ReceiptStep, subscribedEvents?: readonly EventType[]): Receipt;
  /** Takes a receipt unless someone holds it; the alarm, a request and a voiding never work on one at once. */
  claim(id: string): Receipt | null;
  /** Lets go of a receipt: a final one is done; a pending one is due after its back-off. */
  release(id: string): Receipt | null;
  /** Receipts of one type whose e-NCF lies in [desde, hasta] (for voiding). */
  receiptsIn(tipoeCF: string, desde: string, hasta: string): Receipt[];
  /** Claimed receipts that were never sent become Anulado once DGII voided their range. */
  markVoided(ids: string[]): number;
  /** The buyer's commercial approval (ACECF): the first one is the one on record. */
  recordApproval(
    id: string,
    approval: { approvalStatus: string; approvalReason: string | null; approvalAt: string },
  ): void;
  /** The numbers of these runs that hold a receipt here, as intervals. */
  heldIn(tipoeCF: string, runs: [number, number][]): [number, number][];
  /** Credit and debit notes DGII accepted against `encf`. */
  acceptedNotesOf(encf: string): Receipt[];
}

/** Follow-up work (objects/follow-up-facet.ts). */
export interface MonthFollowUp extends Rpc.RpcTargetBranded {
  /** Queues the receipt's e-mail unless it was sent too often (ledger/month/email-limits.ts). */
  queueEmail(companyId: string, encf: string, to: string): EmailQueueing;
  /** An event that is not a receipt's transition (a certificate about to expire, the quota near its limit). */
  emit(companyId: string, subject: string, event: WebhookEvent): void;
  /** Webhook deliveries to one endpoint, newest first. */
  webhookDeliveries(endpointId: string, limit: number): WebhookDelivery[];
  /** Sends a delivery again (a failed one gets three more days); false when this month has no such delivery. */
  retryDelivery(endpointId: string, id: string): boolean;
}

/** Purchases and audit (objects/purchases-facet.ts). */
export interface MonthPurchases extends Rpc.RpcTargetBranded {
  /** Records a purchase; null when the supplier's e-NCF is here already. */
  addPurchase(values: NewPurchase): Purchase | null;
  purchaseById(id: string): Purchase | null;
  updatePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null;
  /** Records our commercial approval in one step: null when one was decided otherwise (the first stands). */
  decidePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null;
  /** The accountant counts a purchase DGII does not confirm (never one DGII rejected). */
  overridePurchaseConfirmation(id: string, override: { reason: string; by: string }, now: Date): Purchase | null;
  deletePurchase(id: string): void;
  audit(entry: AuditEntry): void;
}

/** Reports, monthly formats (606/607/608), shifts (objects/reports-facet.ts). */
export interface MonthReports extends Rpc.RpcTargetBranded {
  /** One month's slice of a report page: rows after the cursor in report order, and the count. */
  reportSlice(name: ReportName, query: ReportSliceQuery): ReportSlice;
  receiptsPage(query: monthly.MonthPageQuery): monthly.PagedReceipt[];
  purchasesPage(query: monthly.MonthPageQuery): Purchase[];
  /** Rows whose document figures are still to be read from their XML, and how many there are. */
  rowsWithoutFigures(limit: number): { rows: monthly.FigureRef[]; total: number };
  storeFigures(rows: { table: "receipts" | "purchases"; id: string; figures: string }[]): void;
  classifyPurchase(id: string, changes: monthly.PurchaseClassificationChanges): Purchase | null;
  recordSaleWithholding(encf: string, changes: monthly.SaleWithholdingChanges): Receipt | null;
  /** Receipts of a voided range that were signed but never sent (now Anulado), for the 608. */
  voidedReceipts(tipoeCF: string, firstNumber: number, lastNumber: number): { encf: string; issueDate: string }[];
  /** The 607's header, totals and E32 summary by SQL aggregates over the sales of types `tipos`. */
  salesHead(tipos: string[]): SalesHead;
  /** The 606's header, totals and exclusions by SQL over the purchases and own documents of types `tipos`. */
  purchasesHead(companyId: string, tipos: string[], issuerRnc: string): Promise<PurchasesHead>;
  /** A till's upload of a shift (cuadre de caja): stored, closed, or refused once closed. */
  putShift(row: NewShift): PutShiftOutcome;
  shiftSlice(query: ShiftSliceQuery): { rows: Shift[]; total: number };
}

/** A month object's maintenance facet (objects/maintenance.ts): no production path calls it. */
export interface MonthMaintenance extends Rpc.RpcTargetBranded {
  /** Rows moved from the D1 ledger (`ledger:migrate`); running it again changes nothing. */
  importRows(rows: MonthRows): void;
  /** Bench-only: synthetic rows (bench/month-rows.ts) and the object's SQLite size; refused unless BENCH_BULK=1. */
  benchLoad(spec: BenchRowsSpec): { databaseSize: number };
}
