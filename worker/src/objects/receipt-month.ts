// One Durable Object per issuer and month: the receipts, purchases, audit entries and follow-up tasks of that month,
// and their retry schedule as the object's alarm, which replaces the queue and the cron: a receipt recorded before a
// crash is due once its request's claim lapses. A thin shell: storage is ledger/, after DGII is after-dgii/ (MonthRpc).
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { buyerDeliveryTask, deliveryEvents, eventTasks, outcomeOf } from "../after-dgii/follow-up.ts";
import { confirmDuePurchases, runMonthAlarm, type MonthAlarmHost } from "../after-dgii/month-alarm.ts";
import { emailTask, eventTask, TASK_DEADLINE_MS, type NewTask, type WebhookEvent } from "../ledger/task-types.ts";
import { CommitGroup } from "../ledger/commit-group.ts";
import { emailWait, type EmailQueueing } from "../ledger/email-limits.ts";
import { nextDueAt } from "../ledger/month-due.ts";
import * as purchases from "../ledger/month-purchases.ts";
import * as receipts from "../ledger/month-receipts.ts";
import { openMonth } from "../ledger/month-open.ts";
import { purchasesHead } from "../ledger/month-purchases-head.ts";
import { salesHead, type SalesHead } from "../ledger/month-sales-head.ts";
import type { ContingencyEntry, ContingencyRecord, MonthMaintenance, MonthRpc, Recorded } from "../ledger/month-rpc.ts";
import * as monthTables from "../ledger/month-tables.ts";
import * as tasks from "../ledger/month-tasks.ts";
import * as monthly from "../ledger/monthly-rows.ts";
import { reportSlice } from "../ledger/report-slice.ts";
import type { DeliveryRecord, ReceiptStep } from "../ledger/receipt-steps.ts";
import type { AuditEntry, NewPurchase, NewReceipt, Purchase, Receipt } from "../ledger/rows.ts";
import type { ReportName, ReportSliceQuery } from "../ledger/report-specs.ts";
import { putShift, shiftSlice, type NewShift, type ShiftSliceQuery } from "../ledger/shift-rows.ts";
import { purchaseEvent, type EventType } from "../webhooks/events.ts";
import { AlarmSchedule } from "./alarm-schedule.ts";
import { MonthMaintenanceFacet } from "./maintenance.ts";

export class ReceiptMonth extends DurableObject<Env> implements MonthRpc {
  private readonly db: receipts.MonthDb;
  private readonly alarms: AlarmSchedule;
  private readonly contingency = new CommitGroup(this.ctx.storage, (e: ContingencyEntry) => this.inContingency(e));
  /** What the alarm's run reads and changes of this object (after-dgii/month-alarm.ts). */
  private readonly host: MonthAlarmHost;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema: monthTables });
    this.alarms = new AlarmSchedule(ctx.storage, () => nextDueAt(ctx.storage));
    this.host = {
      env,
      db: this.db,
      dgiiDownUntil: 0,
      tasksRanAt: 0,
      claim: (id, now) => receipts.claimReceipt(this.db, id, now),
      advance: (id, step) => this.advance(id, step),
      recordDelivery: (id, record) => this.recordDelivery(id, record),
      recordEmails: (id, emails) => receipts.updateReceiptRow(this.db, id, { emails }),
      release: (id) => this.release(id),
      enqueue: (list) => this.enqueue(list),
      audit: (entry) => this.audit(entry),
      schedule: () => this.alarms.schedule(),
      setAlarmAt: (at) => this.alarms.setAt(at),
    };
    void ctx.blockConcurrencyWhile(async () => {
      await openMonth(this.db, ctx.storage);
      this.alarms.schedule(); // whatever is pending has its alarm (a crash may come between a write and it)
    });
  }

  record(values: NewReceipt): Recorded {
    const claimedUntil = Date.now() + receipts.CLAIM_MS;
    const inserted = receipts.insertHeld(this.db, values, claimedUntil);
    if (inserted) this.alarms.schedule(claimedUntil);
    return this.recorded(inserted, values.encf);
  }

  recordInContingency(values: NewReceipt, dgiiMensajes: string, options?: ContingencyRecord): Promise<Recorded> {
    return this.contingency.value({ values, dgiiMensajes, options });
  }
  private inContingency({ values, dgiiMensajes, options = {} }: ContingencyEntry): Recorded {
    const now = Date.now();
    // Not before the down answer can change (its isolate reuses it): the receipts meanwhile go together.
    this.host.dgiiDownUntil = Math.max(this.host.dgiiDownUntil, options.dgiiDownUntil ?? 0);
    const due = Math.max(now + receipts.backoffMs(0), this.host.dgiiDownUntil);
    const inserted = receipts.insertInContingency(this.db, values, dgiiMensajes, due, now);
    if (!inserted) return this.recorded(null, values.encf);
    if (options.audit) this.audit(options.audit); // the request's audit entry, in the same write
    this.followUp(inserted, ["receipt.contingency"], options.subscribedEvents);
    this.alarms.schedule(due); // (when its event was queued, the alarm is set already, no later)
    return { receipt: inserted, existed: false };
  }

  recordForAlarm(rows: NewReceipt[]): Recorded[] {
    const now = Date.now();
    const recorded = rows.map((values) => this.recorded(receipts.insertDue(this.db, values, now), values.encf));
    this.alarms.schedule();
    return recorded;
  }

  private recorded(inserted: Receipt | null, encf: string): Recorded {
    return inserted ? { receipt: inserted, existed: false } : { receipt: this.receipt(encf)!, existed: true };
  }

  receipt(encf: string): Receipt | null {
    return receipts.receiptOf(this.db, encf);
  }
  receiptsByEncf(encfs: string[]): Receipt[] {
    return receipts.receiptsByEncf(this.db, encfs);
  }

  advance(id: string, step: ReceiptStep, subscribedEvents?: readonly EventType[]): Receipt {
    const outcome = outcomeOf(receipts.receiptById(this.db, id)!, step);
    const after = receipts.updateReceiptRow(this.db, id, outcome.changes);
    this.followUp(after, outcome.events, subscribedEvents, outcome.startsDelivery);
    return after;
  }
  /** What one attempt at the buyer's delivery found, and its event. */
  private recordDelivery(id: string, record: DeliveryRecord): void {
    const events = deliveryEvents(receipts.receiptById(this.db, id)!, record);
    this.followUp(receipts.updateReceiptRow(this.db, id, record), events);
  }
  /** The tasks a step leads to (after-dgii/follow-up.ts), written with it. */
  private followUp(receipt: Receipt, events: EventType[], subscribed?: readonly EventType[], delivers = false) {
    const delivery = delivers ? [buyerDeliveryTask(receipt)] : [];
    this.enqueue([...delivery, ...eventTasks(receipt, events, subscribed, new Date())]);
  }

  claim(id: string): Receipt | null {
    return receipts.claimReceipt(this.db, id, new Date());
  }
  release(id: string): Receipt | null {
    const released = receipts.releaseReceiptRow(this.db, id);
    if (released) this.alarms.schedule(released.nextAttemptAt ? Date.parse(released.nextAttemptAt) : undefined);
    return released;
  }
  receiptsIn(tipoeCF: string, desde: string, hasta: string): Receipt[] {
    return receipts.receiptsIn(this.db, tipoeCF, desde, hasta);
  }
  markVoided(ids: string[]): number {
    return receipts.markVoided(this.db, ids);
  }
  recordApproval(id: string, approval: { approvalStatus: string; approvalReason: string | null; approvalAt: string }) {
    const after = receipts.setApproval(this.db, id, approval);
    if (after) this.followUp(after, ["approval.received"]);
  }
  heldIn(tipoeCF: string, runs: [number, number][]): [number, number][] {
    return receipts.heldIn(this.db, tipoeCF, runs);
  }
  acceptedNotesOf(encf: string): Receipt[] {
    return receipts.acceptedNotesOf(this.db, encf);
  }

  queueEmail(companyId: string, encf: string, to: string): EmailQueueing {
    if (!this.receipt(encf)) return { outcome: "no_receipt" };
    const retryAfter = emailWait(this.db, encf, to, Date.now());
    if (retryAfter) return { outcome: "limited", retryAfter };
    this.enqueue([emailTask(companyId, encf, to)]);
    return { outcome: "queued" };
  }
  emit(companyId: string, subject: string, event: WebhookEvent): void {
    this.enqueue([eventTask(companyId, subject, event)]);
  }
  webhookDeliveries(endpointId: string, limit: number): tasks.WebhookDelivery[] {
    return tasks.webhookDeliveries(this.db, endpointId, limit);
  }
  retryDelivery(endpointId: string, id: string): boolean {
    const now = Date.now();
    const changed = tasks.retryDelivery(this.db, endpointId, id, now, now + TASK_DEADLINE_MS.webhook);
    this.alarms.schedule();
    return changed;
  }

  private enqueue(list: NewTask[]): void {
    if (list.length) this.alarms.schedule(tasks.queueTasks(this.db, list, this.host.tasksRanAt));
  }

  /** Moves every due receipt, purchase check and task forward once (after-dgii/month-alarm.ts). */
  override async alarm(): Promise<void> {
    await this.alarms.run(new Date(), (now) => runMonthAlarm(this.host, now));
  }

  addPurchase(values: NewPurchase): Purchase | null {
    const added = purchases.insertPurchase(this.db, values);
    if (added) this.enqueue([eventTask(added.companyId, `purchase:${added.id}`, purchaseEvent(added))]);
    return added;
  }
  purchase(rncEmisor: string, encf: string): Purchase | null {
    return purchases.purchaseOf(this.db, rncEmisor, encf);
  }
  purchaseById(id: string): Purchase | null {
    return purchases.purchaseById(this.db, id);
  }
  updatePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null {
    return purchases.updatePurchase(this.db, id, changes);
  }
  decidePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null {
    return purchases.decidePurchase(this.db, id, changes);
  }
  confirmDuePurchases(now: Date): Promise<number> {
    return confirmDuePurchases(this.host, now);
  }
  overridePurchaseConfirmation(id: string, override: { reason: string; by: string }, now: Date): Purchase | null {
    return purchases.overridePurchaseConfirmation(this.db, id, override, now);
  }
  deletePurchase(id: string): void {
    purchases.deletePurchase(this.db, id);
  }
  audit(entry: AuditEntry): void {
    purchases.insertAuditEntry(this.db, entry);
  }

  reportSlice(name: ReportName, query: ReportSliceQuery) {
    return reportSlice(this.db, name, query);
  }
  receiptsPage(query: monthly.MonthPageQuery): monthly.PagedReceipt[] {
    return monthly.receiptsPage(this.db, query);
  }
  purchasesPage(query: monthly.MonthPageQuery): Purchase[] {
    return monthly.purchasesPage(this.db, query);
  }
  rowsWithoutFigures(limit: number): { rows: monthly.FigureRef[]; total: number } {
    return { rows: monthly.rowsWithoutFigures(this.db, limit), total: monthly.countWithoutFigures(this.db) };
  }
  storeFigures(rows: { table: "receipts" | "purchases"; id: string; figures: string }[]): void {
    this.ctx.storage.transactionSync(() => monthly.storeFigures(this.db, rows));
  }
  classifyPurchase(id: string, changes: monthly.PurchaseClassificationChanges): Purchase | null {
    return monthly.classifyPurchase(this.db, id, changes);
  }
  recordSaleWithholding(encf: string, changes: monthly.SaleWithholdingChanges): Receipt | null {
    return monthly.recordSaleWithholding(this.db, encf, changes);
  }
  voidedReceipts(tipoeCF: string, firstNumber: number, lastNumber: number) {
    return monthly.voidedReceipts(this.db, tipoeCF, firstNumber, lastNumber);
  }
  salesHead(tipos: string[]): SalesHead {
    return salesHead(this.db, tipos);
  }
  purchasesHead(companyId: string, tipos: string[], issuerRnc: string) {
    return purchasesHead(this.db, tipos, issuerRnc, this.env, companyId);
  }
  putShift(row: NewShift) {
    return putShift(this.db, row);
  }
  shiftSlice(query: ShiftSliceQuery) {
    return shiftSlice(this.db, query);
  }

  /** Moving rows from D1 and the bench's synthetic months (objects/maintenance.ts). */
  maintenance(): MonthMaintenance {
    return new MonthMaintenanceFacet(this.ctx.storage, this.db, this.env, () => this.alarms.schedule());
  }
}
