// What a month object's facets and its alarm's run share (after-dgii/month-alarm.ts's
// MonthAlarmHost): the month's storage with what each write entails, decided inside the object and
// written in the same synchronous step: the alarm set for what it made due, and the follow-up work
// (events, delivery to the buyer) a receipt's step leads to (after-dgii/follow-up.ts).
import { buyerDeliveryTask, deliveryEvents, eventTasks, outcomeOf } from "../after-dgii/follow-up.ts";
import type { MonthAlarmHost } from "../after-dgii/month-alarm.ts";
import { CommitGroup } from "../ledger/commit-group.ts";
import { emailWait, type EmailQueueing } from "../ledger/month/email-limits.ts";
import { importMonthRows, type MonthRows } from "../ledger/month/month-import.ts";
import * as purchases from "../ledger/month/month-purchases.ts";
import * as receipts from "../ledger/month/month-receipts.ts";
import type { ContingencyEntry, ContingencyRecord, Recorded } from "../ledger/month/month-rpc.ts";
import * as tasks from "../ledger/month/month-tasks.ts";
import type { DeliveryRecord, ReceiptStep } from "../ledger/month/receipt-steps.ts";
import type { AuditEntry, NewPurchase, NewReceipt, Purchase, Receipt } from "../ledger/rows.ts";
import { emailTask, eventTask, TASK_DEADLINE_MS, type NewTask, type WebhookEvent } from "../ledger/month/task-types.ts";
import { purchaseEvent, type EventType } from "../webhooks/events.ts";
import type { AlarmSchedule } from "./alarm-schedule.ts";

export class MonthHost implements MonthAlarmHost {
  dgiiDownUntil = 0;
  tasksRanAt = 0;
  /** Receipts recorded in contingency, committed with the others that arrive meanwhile. */
  private readonly contingency: CommitGroup<ContingencyEntry, Recorded>;

  constructor(
    readonly env: Env,
    readonly db: receipts.MonthDb,
    private readonly storage: DurableObjectStorage,
    private readonly alarms: AlarmSchedule,
  ) {
    this.contingency = new CommitGroup(storage, (entry) => this.inContingency(entry));
  }

  record(values: NewReceipt, followUp: NewTask[] = []): Recorded {
    const claimedUntil = Date.now() + receipts.CLAIM_MS;
    const inserted = receipts.insertHeld(this.db, values, claimedUntil);
    if (inserted) this.alarms.schedule(claimedUntil);
    if (inserted) this.enqueue(followUp); // what the receipt owes, in the same step
    return this.recorded(inserted, values.encf);
  }

  recordInContingency(values: NewReceipt, dgiiMensajes: string, options?: ContingencyRecord): Promise<Recorded> {
    return this.contingency.value({ values, dgiiMensajes, options });
  }
  private inContingency({ values, dgiiMensajes, options = {} }: ContingencyEntry): Recorded {
    const now = Date.now();
    // Not before the down answer can change (its isolate reuses it): the receipts meanwhile go together.
    this.dgiiDownUntil = Math.max(this.dgiiDownUntil, options.dgiiDownUntil ?? 0);
    const due = Math.max(now + receipts.backoffMs(0), this.dgiiDownUntil);
    const inserted = receipts.insertInContingency(this.db, values, dgiiMensajes, due, now);
    if (!inserted) return this.recorded(null, values.encf);
    if (options.audit) this.audit(options.audit); // the request's audit entry, in the same write
    this.enqueue(options.followUp ?? []);
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
    return inserted
      ? { receipt: inserted, existed: false }
      : { receipt: receipts.receiptOf(this.db, encf)!, existed: true };
  }

  advance(id: string, step: ReceiptStep, subscribedEvents?: readonly EventType[]): Receipt {
    const outcome = outcomeOf(receipts.receiptById(this.db, id)!, step);
    const after = receipts.updateReceiptRow(this.db, id, outcome.changes);
    this.followUp(after, outcome.events, subscribedEvents, outcome.startsDelivery);
    return after;
  }
  /** What one attempt at the buyer's delivery found, and its event. */
  recordDelivery(id: string, record: DeliveryRecord): void {
    const events = deliveryEvents(receipts.receiptById(this.db, id)!, record);
    this.followUp(receipts.updateReceiptRow(this.db, id, record), events);
  }
  recordEmails(id: string, emails: string): void {
    receipts.updateReceiptRow(this.db, id, { emails });
  }
  /** The tasks a step leads to (after-dgii/follow-up.ts), written with it. */
  private followUp(receipt: Receipt, events: EventType[], subscribed?: readonly EventType[], delivers = false) {
    const delivery = delivers ? [buyerDeliveryTask(receipt)] : [];
    this.enqueue([...delivery, ...eventTasks(receipt, events, subscribed, new Date())]);
  }

  claim(id: string, now: Date): Receipt | null {
    return receipts.claimReceipt(this.db, id, now);
  }
  release(id: string): Receipt | null {
    const released = receipts.releaseReceiptRow(this.db, id);
    if (released) this.alarms.schedule(released.nextAttemptAt ? Date.parse(released.nextAttemptAt) : undefined);
    return released;
  }
  recordApproval(id: string, approval: { approvalStatus: string; approvalReason: string | null; approvalAt: string }) {
    const after = receipts.setApproval(this.db, id, approval);
    if (after) this.followUp(after, ["approval.received"]);
  }

  queueEmail(companyId: string, encf: string, to: string): EmailQueueing {
    if (!receipts.receiptOf(this.db, encf)) return { outcome: "no_receipt" };
    const retryAfter = emailWait(this.db, encf, to, Date.now());
    if (retryAfter) return { outcome: "limited", retryAfter };
    this.enqueue([emailTask(companyId, encf, to)]);
    return { outcome: "queued" };
  }
  emit(companyId: string, subject: string, event: WebhookEvent): void {
    this.enqueue([eventTask(companyId, subject, event)]);
  }
  retryDelivery(endpointId: string, id: string): boolean {
    const now = Date.now();
    const changed = tasks.retryDelivery(this.db, endpointId, id, now, now + TASK_DEADLINE_MS.webhook);
    this.alarms.schedule();
    return changed;
  }
  enqueue(list: NewTask[]): void {
    if (list.length) this.alarms.schedule(tasks.queueTasks(this.db, list, this.tasksRanAt));
  }

  addPurchase(values: NewPurchase): Purchase | null {
    const added = purchases.insertPurchase(this.db, values);
    if (added) this.enqueue([eventTask(added.companyId, `purchase:${added.id}`, purchaseEvent(added))]);
    return added;
  }
  audit(entry: AuditEntry): void {
    purchases.insertAuditEntry(this.db, entry);
  }

  /** Rows moved in (objects/maintenance.ts) in one write, and the alarm for whatever they made due. */
  importRows(rows: MonthRows): void {
    this.storage.transactionSync(() => importMonthRows(this.db, rows));
    this.schedule();
  }
  schedule(): void {
    this.alarms.schedule();
  }
  setAlarmAt(at: number): Promise<void> {
    return this.alarms.setAt(at);
  }
}
