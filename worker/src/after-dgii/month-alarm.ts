// One run of a month object's alarm, the workflow after DGII in one place: move every due
// receipt forward once (send, recover with consultatrackids, or poll), each under its own claim;
// check the purchases due with DGII; run the due follow-up tasks (webhooks, buyer delivery,
// e-mail). The object (objects/receipt-month.ts) gives its storage and its alarm; this decides.
// What moves a receipt (the DGII client, signing, the e-CF's XML) and what runs a task (e-mail,
// the PDF, webhooks, buyer delivery) load on the first run that has such work, not when the object
// starts (bench/cold-start.bench.ts, worker/test-node/lazy-modules.test.ts).
import { companyById } from "../db/companies.ts";
import type { Company } from "../db/tables.ts";
import type { MonthDb } from "../ledger/month/month-receipts.ts";
import {
  ALARM_BATCH,
  awaitsFirstSend,
  backoffMs,
  countAttempt,
  dueReceipts,
  postponeReceipt,
  receiptOf,
} from "../ledger/month/month-receipts.ts";
import { purchasesDueForCheck, recordPurchaseCheck } from "../ledger/month/month-purchases.ts";
import { claimTask, dueTasks, settleTask } from "../ledger/month/month-tasks.ts";
import type { DeliveryRecord, ReceiptStep } from "../ledger/month/receipt-steps.ts";
import type { AuditEntry, Purchase, Receipt } from "../ledger/rows.ts";
import { checkPurchaseAtDgii, CONFIRMATIONS_PER_RUN, judgeAnswer } from "../receiving/purchase-confirmation.ts";
import { purchaseEvent } from "../webhooks/events.ts";
import { issuerEndpoints, type WebhookEndpoint } from "../webhooks/endpoints.ts";
import {
  eventTask,
  taskBackoffMs,
  type NewTask,
  type TaskContext,
  type TaskOutcome,
} from "../ledger/month/task-types.ts";

/** What the alarm's run needs of its month object. */
export interface MonthAlarmHost {
  env: Env;
  db: MonthDb;
  /** Until when DGII's status service's last "down" for this issuer stands (epoch ms); the run may extend it. */
  dgiiDownUntil: number;
  /** When due tasks last ran (epoch ms); see EVENT_GATHER_MS in ledger/month/month-tasks.ts. */
  tasksRanAt: number;
  claim(id: string, now: Date): Receipt | null;
  advance(id: string, step: ReceiptStep): Receipt;
  recordDelivery(id: string, record: DeliveryRecord): void;
  recordEmails(id: string, emails: string): void;
  release(id: string): Receipt | null;
  enqueue(tasks: NewTask[]): void;
  audit(entry: AuditEntry): void;
  /** Sets the alarm for the earliest due thing (or at once, `at`). */
  schedule(): void;
  setAlarmAt(at: number): Promise<void>;
}

/** The alarm's next turn for a receipt it did not move (the same back-off release gives). */
function postpone(host: MonthAlarmHost, receipt: Receipt, now: Date): void {
  // Not before DGII's status can have changed: the receipts waiting for it take their turns
  // together, in one alarm run, instead of one run each.
  const next = Math.max(now.getTime() + backoffMs(receipt.retries + 1), host.dgiiDownUntil);
  postponeReceipt(host.db, receipt.id, receipt.retries + 1, next, now);
}

/** Postpones the due receipts that only wait for DGII to come back; returns the others, to move now. */
function postponeWaiting(host: MonthAlarmHost, due: Receipt[], now: Date): Receipt[] {
  for (const receipt of due) if (awaitsFirstSend(receipt)) postpone(host, receipt, now);
  return due.filter((receipt) => !awaitsFirstSend(receipt));
}

/** The due receipts worth moving now, and their issuer (read once per run). */
async function receiptsToMove(host: MonthAlarmHost, now: Date): Promise<{ due: Receipt[]; company?: Company }> {
  let due = dueReceipts(host.db, now);
  // Receipts that only wait for DGII to come back stay put while its status service says it is
  // still down: their next turn, without a claim, an archive read or a change. While the last
  // answer is still the one DGII's client would reuse, it is not asked again, nor the issuer read.
  if (due.length && due.every(awaitsFirstSend) && now.getTime() < host.dgiiDownUntil)
    due = postponeWaiting(host, due, now);
  // The issuer, read once per run for every receipt of it (the object holds one issuer's month).
  // (Failing to read it leaves each receipt to its own attempt, as before.)
  const company = due.length ? await companyById(host.env, due[0]!.companyId).catch(() => undefined) : undefined;
  if (!company || !due.some(awaitsFirstSend)) return { due, company };
  const { dgiiAvailableFor, dgiiStatusTtlMs } = await import("../dgii/for-company.ts");
  if (!(await dgiiAvailableFor(host.env, company))) {
    host.dgiiDownUntil = now.getTime() + dgiiStatusTtlMs(host.env);
    due = postponeWaiting(host, due, now);
  }
  return { due, company };
}

/**
 * Moves the due receipts forward side by side: a backlog (a till's batch) is sent at DGII's pace,
 * not one round trip after another (the runtime bounds the connections open at once). A credit or
 * debit note waits for the receipt it modifies when both are due, so DGII never hears of the note first.
 */
async function moveReceipts(host: MonthAlarmHost, due: Receipt[], now: Date, company?: Company): Promise<void> {
  if (!due.length) return;
  const { moveForward } = await import("./receipt-step.ts");
  const moved = new Map<string, Promise<void>>();
  for (const receipt of due) {
    const original = receipt.ncfModificado ? moved.get(receipt.ncfModificado) : undefined;
    const work = (async () => {
      await original;
      const claimed = host.claim(receipt.id, new Date());
      if (!claimed) return;
      try {
        await moveForward(host.env, claimed, { advance: async (id, step) => host.advance(id, step) }, now, company);
      } catch (error) {
        console.error(`alarm: ${receipt.encf} failed`, error);
      } finally {
        countAttempt(host.db, receipt.id);
        host.release(receipt.id);
      }
    })();
    moved.set(receipt.encf, work);
  }
  await Promise.all(moved.values());
}

/** One run of the alarm; a full batch of anything runs again at once. */
export async function runMonthAlarm(host: MonthAlarmHost, now: Date): Promise<void> {
  const { due, company } = await receiptsToMove(host, now);
  await moveReceipts(host, due, now, company);
  const checked = await confirmDuePurchases(host, now, company);
  const ranTasks = await runDueTasks(host, now);
  if (due.length === ALARM_BATCH || ranTasks === ALARM_BATCH || checked === CONFIRMATIONS_PER_RUN)
    await host.setAlarmAt(Date.now());
  host.schedule();
}

/** Records one check of a purchase with DGII; a change is audited, and one unknown to DGII announced. */
function recordCheck(
  host: MonthAlarmHost,
  purchase: Purchase,
  outcome: { dgiiStatus: Purchase["dgiiStatus"]; dgiiNextCheckAt: string | null; detail: string },
  now: Date,
): void {
  const after = recordPurchaseCheck(host.db, purchase.id, outcome, now);
  if (!after || after.dgiiStatus === purchase.dgiiStatus) return;
  host.audit({
    companyId: purchase.companyId,
    actor: "alarm",
    action: "consultaestado (purchase)",
    code: `purchase_${after.dgiiStatus}`,
    status: 200,
    detail: `${purchase.encf} from ${purchase.rncEmisor}: ${outcome.detail}`,
    requestId: `purchase-check:${purchase.id}:${after.dgiiChecks}`,
  });
  if (after.dgiiStatus === "not_found_at_dgii")
    host.enqueue([
      eventTask(after.companyId, `purchase:${after.id}`, purchaseEvent(after, now, "purchase.unconfirmed")),
    ]);
}

/**
 * Asks DGII about the purchases due for a check at `now` (the alarm's clock; tests pass theirs)
 * and records each answer. Returns how many were checked.
 */
export async function confirmDuePurchases(host: MonthAlarmHost, now: Date, issuer?: Company): Promise<number> {
  const due = purchasesDueForCheck(host.db, now, CONFIRMATIONS_PER_RUN);
  if (!due.length) return 0;
  const company = issuer ?? (await companyById(host.env, due[0]!.companyId).catch(() => undefined));
  await Promise.all(
    due.map(async (purchase) => {
      const outcome = company
        ? await checkPurchaseAtDgii(host.env, company, purchase, now)
        : { ...judgeAnswer(purchase, undefined, now), detail: "The buyer could not be read." };
      recordCheck(host, purchase, outcome, now);
    }),
  );
  host.schedule();
  return due.length;
}

/** What a task may read and change: this month's receipts, and the issuer's endpoints read once per run. */
function taskContext(host: MonthAlarmHost, now: Date, receipt: (encf: string) => Receipt | null): TaskContext {
  const endpoints = new Map<string, Promise<WebhookEndpoint[]>>();
  return {
    env: host.env,
    now,
    receipt,
    recordDelivery: (id, record) => host.recordDelivery(id, record),
    recordEmails: (id, emails) => host.recordEmails(id, emails),
    issuerEndpoints: (companyId) => {
      let read = endpoints.get(companyId);
      if (!read) endpoints.set(companyId, (read = issuerEndpoints(host.env, companyId)));
      return read;
    },
  };
}

/** Runs the due tasks side by side, each under a claim, and settles each with its outcome. */
async function runDueTasks(host: MonthAlarmHost, now: Date): Promise<number> {
  if (!dueTasks(host.db, now).length) return 0;
  // Loaded before the due tasks are read and claimed: nothing may await between the read and the
  // claims, or another run would read the same tasks meanwhile and run them twice.
  const { runTask } = await import("./tasks.ts");
  const due = dueTasks(host.db, now);
  if (!due.length) return 0;
  host.tasksRanAt = now.getTime();
  const context = taskContext(host, now, (encf) => receiptOf(host.db, encf));
  await Promise.all(
    due.map(async (task) => {
      claimTask(host.db, task.id);
      let outcome: TaskOutcome;
      try {
        outcome = await runTask(task, context);
      } catch (error) {
        outcome = { status: "retry", result: { error: (error as Error).message } };
      }
      const attempts = task.attempts + 1;
      settleTask(host.db, task.id, {
        status: outcome.status === "retry" ? "pending" : outcome.status,
        attempts,
        lastResult: outcome.result,
        nextAttemptAt: Date.now() + (outcome.status === "retry" ? taskBackoffMs(attempts) : 0),
      });
      if (outcome.then) host.enqueue(outcome.then);
    }),
  );
  return due.length;
}
