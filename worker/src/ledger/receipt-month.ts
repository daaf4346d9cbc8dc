// One Durable Object per issuer and month: the receipts, purchases and audit entries of that
// month, and the retry schedule of its receipts as the object's alarm. The alarm replaces the
// queue and the cron: a receipt recorded before a crash is due once its request's claim lapses,
// and the alarm (which `wrangler dev` runs too) transmits it with nobody asking.
import { DurableObject } from "cloudflare:workers";
import { and, asc, eq, getTableColumns, gte, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { drizzle, type DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import { isFinal } from "../issuing/estado.ts";
import { moveForward } from "../issuing/background.ts";
import { companyById } from "../db/companies.ts";
import type { Company } from "../db/schema.ts";
import { checkPurchaseAtDgii, CONFIRMATIONS_PER_RUN, judgeAnswer } from "../receiving/purchase-confirmation.ts";
import { dgiiAvailableFor, dgiiStatusTtlMs } from "../dgii/for-company.ts";
import migrations from "./migrations/month/migrations.js";
import * as monthTables from "./month-tables.ts";
import { auditLog, purchases, receipts, tasks } from "./month-tables.ts";
import { encfOf } from "./numbering.ts";
import { param, preparedOnce } from "./prepared.ts";
import type { AuditEntry, NewPurchase, NewReceipt, Purchase, Receipt, ReceiptChanges } from "./schema.ts";
import {
  ESTADO_SQL,
  REPORT_SPECS,
  type ReportFilter,
  type ReportName,
  type ReportSlice,
  type ReportSliceQuery,
} from "../reports/specs.ts";
import * as monthly from "./monthly-rows.ts";
import {
  putShift,
  shiftSlice,
  type NewShift,
  type PutShiftOutcome,
  type Shift,
  type ShiftSliceQuery,
} from "../shifts/shift-rows.ts";
import {
  emailTask,
  eventTask,
  runTask,
  TASK_DEADLINE_MS,
  taskBackoffMs,
  type NewTask,
  type Task,
  type TaskContext,
  type TaskOutcome,
} from "../after-dgii/tasks.ts";
import { issuerEndpoints, type WebhookEndpoint } from "../webhooks/endpoints.ts";
import { NOT_EXCHANGED } from "../receiving/reception.ts";
import {
  purchaseEvent,
  receiptEvent,
  transitionEvents,
  type EventType,
  type WebhookEvent,
} from "../webhooks/events.ts";

type MonthDb = DrizzleSqliteDODatabase<typeof monthTables>;

/** How long a request holds a receipt it is transmitting before the alarm may take it over. */
export const CLAIM_MS = 60_000;
/**
 * How long the alarm holds a follow-up task it is running: longer than the slowest attempt (a
 * directory lookup, the receiver's authentication and the post, each with its timeout), so a
 * slow attempt is never run twice at once; it only matters if the object dies mid-task.
 */
const TASK_CLAIM_MS = 5 * 60_000;
/** Receipts the alarm moves forward per run; the rest are due again at once. */
const ALARM_BATCH = 25;
/**
 * Events queued within this long of the object's last task run wait for the next one: a burst of
 * receipts (a busy till, a backlog in contingency) wakes the alarm and reads the webhook
 * endpoints once per second, not once per receipt. A lone event is due at once.
 */
export const EVENT_GATHER_MS = 1000;
const PENDING = ["signed", "contingency", "in_process"] as const;

/**
 * In contingency and never sent: all the alarm can do for it is send it, once DGII's status
 * service says the environment is up again.
 */
function awaitsFirstSend(receipt: Receipt): boolean {
  return receipt.status === "contingency" && !receipt.trackId && receipt.sendAttempts === 0;
}

/** Back-off between the alarm's attempts at one receipt: 1 s, 2 s, 4 s, 8 s, … capped at 10 minutes. */
export function backoffMs(retries: number): number {
  return Math.min(600, 2 ** Math.max(0, retries)) * 1000;
}

// Every column of a new receipt but created_at (SQLite's clock sets it): a value missing from
// the row takes the column's default, as drizzle's own insert would give it.
const receiptColumns = Object.entries(getTableColumns(receipts)).filter(([field]) => field !== "createdAt");
const insertReceipt = preparedOnce((db: MonthDb) =>
  db
    .insert(receipts)
    .values(Object.fromEntries(receiptColumns.map(([field]) => [field, param(field)])) as unknown as NewReceipt)
    .onConflictDoNothing()
    .returning()
    .prepare(),
);
const receiptParams = (row: NewReceipt): Record<string, unknown> =>
  Object.fromEntries(
    receiptColumns.map(([field, column]) => [field, (row as Record<string, unknown>)[field] ?? column.default ?? null]),
  );

const insertAudit = preparedOnce((db: MonthDb) =>
  db
    .insert(auditLog)
    .values({
      companyId: param("companyId"),
      actor: param("actor"),
      action: param("action"),
      code: param("code"),
      status: param("status"),
      detail: param("detail"),
      requestId: param("requestId"),
      createdAt: param("createdAt"),
    })
    .prepare(),
);

const receiptByEncf = preparedOnce((db: MonthDb) =>
  db
    .select()
    .from(receipts)
    .where(eq(receipts.encf, param("encf")))
    .prepare(),
);
const receiptWithId = preparedOnce((db: MonthDb) =>
  db
    .select()
    .from(receipts)
    .where(eq(receipts.id, param("id")))
    .prepare(),
);
/**
 * Nobody holds the receipt at `now`: a claim lapses at its time, not a moment after, as the alarm
 * computes it (an alarm set for the time a claim lapses finds that receipt due).
 */
const unheldAt = (now: SQL | string) => or(isNull(receipts.claimedUntil), lte(receipts.claimedUntil, now));
const postponeUnheld = preparedOnce((db: MonthDb) =>
  db
    .update(receipts)
    .set({ retries: param("retries"), nextAttemptAt: param("nextAttemptAt") })
    .where(and(eq(receipts.id, param("id")), unheldAt(param("now"))))
    .prepare(),
);
const dueReceipts = preparedOnce((db: MonthDb) =>
  db
    .select()
    .from(receipts)
    .where(
      and(inArray(receipts.status, [...PENDING]), lte(receipts.nextAttemptAt, param("now")), unheldAt(param("now"))),
    )
    // Ties (a till's batch is due at one instant) go in the order they were recorded.
    .orderBy(asc(receipts.nextAttemptAt), asc(sql`rowid`))
    .limit(ALARM_BATCH)
    .prepare(),
);
const claimUnheld = preparedOnce((db: MonthDb) =>
  db
    .update(receipts)
    .set({ claimedUntil: param("claimedUntil") })
    .where(and(eq(receipts.id, param("id")), unheldAt(param("now"))))
    .returning()
    .prepare(),
);
const releaseReceipt = preparedOnce((db: MonthDb) =>
  db
    .update(receipts)
    .set({ claimedUntil: null, nextAttemptAt: param("nextAttemptAt") })
    .where(eq(receipts.id, param("id")))
    .returning()
    .prepare(),
);
const claimTask = preparedOnce((db: MonthDb) =>
  db
    .update(tasks)
    .set({ claimedUntil: param("claimedUntil") })
    .where(eq(tasks.id, param("id")))
    .prepare(),
);
const settleTask = preparedOnce((db: MonthDb) =>
  db
    .update(tasks)
    .set({
      status: param("status"),
      attempts: param("attempts"),
      claimedUntil: null,
      lastResult: param("lastResult"),
      nextAttemptAt: param("nextAttemptAt"),
      updatedAt: param("updatedAt"),
    })
    .where(eq(tasks.id, param("id")))
    .prepare(),
);
const insertTask = preparedOnce((db: MonthDb) =>
  db
    .insert(tasks)
    .values({
      id: param("id"),
      kind: param("kind"),
      orderingKey: param("orderingKey"),
      payload: param("payload"),
      nextAttemptAt: param("nextAttemptAt"),
      deadline: param("deadline"),
    })
    .onConflictDoNothing()
    .prepare(),
);

/** What a request knows beside a receipt it records in contingency. */
export interface ContingencyRecord {
  /** The request's audit entry, written in the same transaction. */
  audit?: AuditEntry;
  /** The event types some endpoint hearing the issuer listens for (unset: every event). */
  subscribedEvents?: readonly EventType[];
  /** Until when the status answer that said DGII is down is reused (epoch ms). */
  dgiiDownUntil?: number;
}

export class ReceiptMonth extends DurableObject<Env> {
  private readonly db: MonthDb;
  /** Until when DGII's status service's last "down" for this issuer stands (its answers are reused that long). */
  private dgiiDownUntil = 0;
  /** When this object's alarm is set for, as far as this instance set it (null: none pending); see schedule(). */
  private alarmAt: number | null = null;
  /**
   * When the alarm run in progress started (null: none runs). The alarm it fired for was due by
   * then; see setAlarmAt.
   */
  private alarmRunStartedAt: number | null = null;
  /** When this instance last ran due tasks (0: not yet); see EVENT_GATHER_MS. */
  private tasksRanAt = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = drizzle(ctx.storage, { schema: monthTables });
    void ctx.blockConcurrencyWhile(async () => {
      await migrate(this.db, migrations);
      this.releaseTasksOfDeadInstance();
      // Whatever is pending when the object starts has its alarm: a crash between a change's
      // write and its alarm's would otherwise leave it waiting for the next change.
      this.schedule();
    });
  }

  /**
   * Only this object's alarm claims tasks, and only one instance of the object runs at a time: a
   * claim found when the object starts was its previous instance's, which died mid-task (a crash,
   * a restart). Its tasks are due again at once rather than when that claim would lapse; an
   * attempt that had already reached the receiver is sent again under the same id (webhooks are
   * at least once). (The object sets its alarm when it starts.)
   */
  private releaseTasksOfDeadInstance(): void {
    this.ctx.storage.sql.exec(
      "UPDATE tasks SET claimed_until = NULL WHERE status = 'pending' AND claimed_until IS NOT NULL",
    );
  }

  // ------------------------------------------------------------------------------- receipts

  /**
   * Records a receipt, held by its request (`claimedUntil`) while it transmits. If the request
   * dies, the claim lapses and the alarm sends it. One row per e-NCF: a second record of the
   * same e-NCF returns the first.
   */
  record(values: NewReceipt): { receipt: Receipt; existed: boolean } {
    const now = Date.now();
    const claimedUntil = new Date(now + CLAIM_MS).toISOString();
    const inserted = this.db
      .insert(receipts)
      .values({ ...values, status: "signed", claimedUntil, nextAttemptAt: claimedUntil })
      .onConflictDoNothing()
      .returning()
      .get();
    if (inserted) {
      this.schedule(now + CLAIM_MS);
      return { receipt: inserted, existed: false };
    }
    return { receipt: this.receipt(values.encf)!, existed: true };
  }

  /**
   * Records a receipt DGII cannot take now (its status service says its environment is down): in
   * contingency at once, nobody holding it, due for the alarm after the first back-off, and not
   * before that answer can change (`dgiiDownUntil`). One step
   * where record → update → release would take three; the same row and the same
   * receipt.contingency event. One row per e-NCF, as in record().
   */
  recordInContingency(
    values: NewReceipt,
    dgiiMensajes: string,
    options: ContingencyRecord = {},
  ): { receipt: Receipt; existed: boolean } {
    const { audit, subscribedEvents } = options;
    const now = Date.now();
    // Not before the status answer that said down can change (the request's isolate reuses it
    // until then; see postpone): the receipts recorded meanwhile take their first turn together.
    if (options.dgiiDownUntil !== undefined && options.dgiiDownUntil > this.dgiiDownUntil)
      this.dgiiDownUntil = options.dgiiDownUntil;
    const due = Math.max(now + backoffMs(0), this.dgiiDownUntil);
    const inserted = insertReceipt(this.db).get(
      receiptParams({
        ...values,
        status: "contingency",
        dgiiMensajes,
        claimedUntil: null,
        nextAttemptAt: new Date(due).toISOString(),
        updatedAt: new Date(now).toISOString(),
      }),
    );
    if (!inserted) return { receipt: this.receipt(values.encf)!, existed: true };
    // The request's audit entry, in the same write as the receipt.
    if (audit) this.audit(audit);
    const receipt = this.followUp({ ...inserted, status: "signed" }, inserted, subscribedEvents);
    // (When its event was queued, the alarm is set already, no later than this receipt is due.)
    this.schedule(due);
    return { receipt, existed: false };
  }

  /**
   * Records a till's batch, in the order given, for the alarm to transmit: nobody holds these
   * receipts, so they are due at once and the alarm sends them (as it would a receipt whose
   * request died). One row per e-NCF, as in record(): an e-NCF already here returns that row.
   */
  recordForAlarm(rows: NewReceipt[]): { receipt: Receipt; existed: boolean }[] {
    const due = new Date().toISOString();
    const recorded = rows.map((values) => {
      const inserted = this.db
        .insert(receipts)
        .values({ ...values, status: "signed", claimedUntil: null, nextAttemptAt: due })
        .onConflictDoNothing()
        .returning()
        .get();
      return inserted ? { receipt: inserted, existed: false } : { receipt: this.receipt(values.encf)!, existed: true };
    });
    this.schedule();
    return recorded;
  }

  receipt(encf: string): Receipt | null {
    return receiptByEncf(this.db).get({ encf }) ?? null;
  }

  /** The receipts of these e-NCF that are here (in no particular order). */
  receiptsByEncf(encfs: string[]): Receipt[] {
    const found: Receipt[] = [];
    // A Durable Object's SQLite binds at most 100 parameters per statement.
    for (let i = 0; i < encfs.length; i += 100)
      found.push(
        ...this.db
          .select()
          .from(receipts)
          .where(inArray(receipts.encf, encfs.slice(i, i + 100)))
          .all(),
      );
    return found;
  }

  receiptById(id: string): Receipt | null {
    return receiptWithId(this.db).get({ id }) ?? null;
  }

  /**
   * Changes a receipt; what the change means (events, delivery to the buyer) is queued in the same
   * step. `subscribedEvents`: see followUp.
   */
  update(id: string, changes: ReceiptChanges, subscribedEvents?: readonly EventType[]): Receipt {
    const before = this.receiptById(id)!;
    const after = this.db
      .update(receipts)
      .set({ ...changes, updatedAt: new Date().toISOString() })
      .where(eq(receipts.id, id))
      .returning()
      .get()!;
    return this.followUp(before, after, subscribedEvents);
  }

  /**
   * The tasks a change leads to, written with it: DGII's acceptance starts the delivery to the
   * buyer (an e-CF with a buyer RNC, of a type exchanged between taxpayers); every transition an
   * integrator can subscribe to becomes an event, in the order it happened. A request that read
   * which event types the issuer's webhook endpoints are subscribed to (`subscribedEvents`, with
   * its API key) queues only those: an issuer nobody listens to costs no alarm run and no read of
   * its endpoints per receipt. (Without it, every event is queued and the alarm finds who hears it.)
   */
  private followUp(before: Receipt, after: Receipt, subscribedEvents?: readonly EventType[]): Receipt {
    let current = after;
    const accepted = (r: Receipt) => r.status === "accepted" || r.status === "conditional";
    if (
      accepted(after) &&
      !accepted(before) &&
      after.rncComprador &&
      !NOT_EXCHANGED.has(after.tipoeCF) &&
      !after.deliveryStatus
    ) {
      current = this.db
        .update(receipts)
        .set({ deliveryStatus: "pendiente" })
        .where(eq(receipts.id, after.id))
        .returning()
        .get()!;
      this.enqueue([
        {
          kind: "buyer_delivery",
          orderingKey: `delivery:${after.encf}`,
          payload: { companyId: after.companyId, encf: after.encf },
        },
      ]);
    }
    const now = new Date();
    const heard = transitionEvents(before, current).filter(
      (type) => !subscribedEvents || subscribedEvents.includes(type),
    );
    this.enqueue(
      heard.map((type) => eventTask(current.companyId, `receipt:${current.encf}`, receiptEvent(type, current, now))),
    );
    return current;
  }

  /** Queues the printed copy of a receipt by e-mail (POST /fe/recepcion/ecf/{encf}/email); false when there is no such receipt. */
  queueEmail(companyId: string, encf: string, to: string): boolean {
    if (!this.receipt(encf)) return false;
    this.enqueue([emailTask(companyId, encf, to)]);
    return true;
  }

  /** An event that is not a receipt's transition (a certificate about to expire, the quota near its limit). */
  emit(companyId: string, subject: string, event: WebhookEvent): void {
    this.enqueue([eventTask(companyId, subject, event)]);
  }

  /** Takes a receipt unless someone holds it; the alarm, a request and a voiding never work on one at once. */
  claim(id: string): Receipt | null {
    const now = new Date();
    return (
      claimUnheld(this.db).get({
        id,
        claimedUntil: new Date(now.getTime() + CLAIM_MS).toISOString(),
        now: now.toISOString(),
      }) ?? null
    );
  }

  /**
   * Lets go of a receipt: a final one is done; a pending one is due after its back-off (the first
   * is one second), and the alarm is set for it.
   */
  release(id: string): Receipt | null {
    const row = this.receiptById(id);
    if (!row) return null;
    const nextAttemptAt = isFinal(row.status) ? null : new Date(Date.now() + backoffMs(row.retries)).toISOString();
    const released = releaseReceipt(this.db).get({ id, nextAttemptAt })!;
    this.schedule(nextAttemptAt ? Date.parse(nextAttemptAt) : undefined);
    return released;
  }

  /** The alarm's next turn for a receipt it did not move (the same back-off as release gives); nothing if someone holds it. */
  private postpone(receipt: Receipt, now: Date): void {
    // Not before DGII's status can have changed: the receipts waiting for it take their turns
    // together, in one alarm run, instead of one run each.
    const next = Math.max(now.getTime() + backoffMs(receipt.retries + 1), this.dgiiDownUntil);
    postponeUnheld(this.db).run({
      id: receipt.id,
      retries: receipt.retries + 1,
      nextAttemptAt: new Date(next).toISOString(),
      now: now.toISOString(),
    });
  }

  /** Postpones the due receipts that only wait for DGII to come back; returns the others, to move now. */
  private postponeWaiting(due: Receipt[], now: Date): Receipt[] {
    for (const receipt of due) if (awaitsFirstSend(receipt)) this.postpone(receipt, now);
    return due.filter((receipt) => !awaitsFirstSend(receipt));
  }

  /** Receipts of one type whose e-NCF lies in [desde, hasta] (for voiding). */
  receiptsIn(tipoeCF: string, desde: string, hasta: string): Receipt[] {
    return this.db
      .select()
      .from(receipts)
      .where(and(eq(receipts.tipoeCF, tipoeCF), gte(receipts.encf, desde), lte(receipts.encf, hasta)))
      .all();
  }

  /** Claimed receipts that were never sent become Anulado once DGII voided their range. */
  markVoided(ids: string[]): number {
    if (!ids.length) return 0;
    return this.db
      .update(receipts)
      .set({ status: "voided", claimedUntil: null, nextAttemptAt: null, updatedAt: new Date().toISOString() })
      .where(and(inArray(receipts.id, ids), eq(receipts.sendAttempts, 0)))
      .returning({ id: receipts.id })
      .all().length;
  }

  /** The buyer's commercial approval (ACECF): the first one is the one on record. */
  recordApproval(
    id: string,
    approval: { approvalStatus: string; approvalReason: string | null; approvalAt: string },
  ): void {
    const before = this.receiptById(id);
    const after = this.db
      .update(receipts)
      .set({ ...approval, updatedAt: new Date().toISOString() })
      .where(and(eq(receipts.id, id), isNull(receipts.approvalStatus)))
      .returning()
      .get();
    if (before && after) this.followUp(before, after);
  }

  /**
   * The numbers of these runs that hold a receipt here, as intervals. A run whose count matches
   * its length is answered from the e-NCF index alone; only a run with holes is listed.
   */
  heldIn(tipoeCF: string, runs: [number, number][]): [number, number][] {
    const held: [number, number][] = [];
    for (const [first, last] of runs) {
      const [from, to] = [encfOf(tipoeCF, first), encfOf(tipoeCF, last)];
      const inRun = and(gte(receipts.encf, from), lte(receipts.encf, to));
      const count = this.db.select({ n: sql<number>`count(*)` }).from(receipts).where(inRun).get()?.n ?? 0;
      if (count === last - first + 1) {
        held.push([first, last]);
        continue;
      }
      for (const { encf } of this.db
        .select({ encf: receipts.encf })
        .from(receipts)
        .where(inRun)
        .orderBy(receipts.encf)
        .all()) {
        const n = Number(encf.slice(3));
        const previous = held[held.length - 1];
        if (previous && previous[1] === n - 1) previous[1] = n;
        else held.push([n, n]);
      }
    }
    return held;
  }

  /** Credit and debit notes DGII accepted against `encf`. */
  acceptedNotesOf(encf: string): Receipt[] {
    return this.db
      .select()
      .from(receipts)
      .where(and(eq(receipts.ncfModificado, encf), inArray(receipts.status, ["accepted", "conditional"])))
      .all();
  }

  // ------------------------------------------------------------------------------ the alarm

  /**
   * Sets the alarm for the earliest due receipt (the database knows it; the alarm is one time).
   * `dueFrom`: nothing the caller's change made due is due before then, so an alarm set for then or
   * earlier already covers it (it reschedules when it is done) and the database need not be asked.
   */
  private schedule(dueFrom?: number): void {
    if (dueFrom !== undefined && this.alarmAt !== null && this.alarmAt <= dueFrom) return;
    // A held receipt is due when its holder's claim lapses, not before. Only the first pending
    // task of each ordering key can run; the others wait behind it. (Plain SQL: it runs on every
    // change, and needs no building.)
    const { next, nextCheck, nextTask } = this.ctx.storage.sql
      .exec<{ next: string | null; nextCheck: string | null; nextTask: string | null }>(
        `SELECT
          (SELECT min(max(next_attempt_at, coalesce(claimed_until, ''))) FROM receipts
            WHERE status IN (${PENDING.map((s) => `'${s}'`).join(", ")}) AND next_attempt_at IS NOT NULL) AS next,
          (SELECT min(dgii_next_check_at) FROM purchases WHERE dgii_next_check_at IS NOT NULL) AS nextCheck,
          (SELECT min(max(t.next_attempt_at, coalesce(t.claimed_until, ''))) FROM tasks AS t
            WHERE t.status = 'pending'
              AND NOT EXISTS (SELECT 1 FROM tasks AS e WHERE e.ordering_key = t.ordering_key AND e.status = 'pending' AND e.position < t.position)) AS nextTask`,
      )
      .one();
    const earliest = [next, nextCheck, nextTask].filter((t): t is string => Boolean(t)).sort()[0];
    if (!earliest) return;
    const at = Math.max(Date.parse(earliest), Date.now());
    // An alarm that runs by then stays as it is: it reschedules when it is done. Moving it on every
    // change (each move a storage write of its own) costs more than a run that finds nothing due.
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.setAlarmAt(at).catch((error: unknown) => console.error("setAlarm failed", error));
  }

  private async setAlarmAt(due: number): Promise<void> {
    // While a run is in progress, the runtime still holds the alarm it fired for, and deletes it
    // when the run ends unless the alarm was changed. Setting it again to the very time it fired
    // for (a clock that stood still since: a run with nothing to do) changes nothing, so the next
    // alarm would be lost with it: until a run ends, the next one is strictly after its start.
    const at = this.alarmRunStartedAt === null ? due : Math.max(due, this.alarmRunStartedAt + 1);
    this.alarmAt = at;
    try {
      await this.ctx.storage.setAlarm(at);
    } catch (error) {
      if (this.alarmAt === at) this.alarmAt = null;
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------- tasks

  private enqueue(list: NewTask[]): void {
    if (!list.length) return;
    const now = Date.now();
    const eventsDue = Math.max(now, this.tasksRanAt + EVENT_GATHER_MS);
    for (const task of list) {
      insertTask(this.db).run({
        id: task.id ?? crypto.randomUUID(),
        kind: task.kind,
        orderingKey: task.orderingKey,
        payload: JSON.stringify(task.payload),
        nextAttemptAt: new Date(task.kind === "event" ? eventsDue : now).toISOString(),
        deadline: new Date(now + TASK_DEADLINE_MS[task.kind]).toISOString(),
      });
    }
    // (A task behind another of its ordering key is due later still.)
    this.schedule(list.every((task) => task.kind === "event") ? eventsDue : now);
  }

  /** Due tasks that are first in line for their ordering key. */
  private dueTasks(now: Date): Task[] {
    return this.db.all<Task>(sql`
      SELECT id, kind, ordering_key AS "orderingKey", payload, attempts, deadline, created_at AS "createdAt" FROM tasks AS t
      WHERE t.status = 'pending' AND t.next_attempt_at <= ${now.toISOString()}
        AND (t.claimed_until IS NULL OR t.claimed_until <= ${now.toISOString()})
        AND NOT EXISTS (SELECT 1 FROM tasks AS e WHERE e.ordering_key = t.ordering_key AND e.status = 'pending' AND e.position < t.position)
      ORDER BY t.position LIMIT ${ALARM_BATCH}`);
  }

  private async runDueTasks(now: Date): Promise<number> {
    const due = this.dueTasks(now);
    if (due.length) this.tasksRanAt = now.getTime();
    const endpoints = new Map<string, Promise<WebhookEndpoint[]>>();
    const context: TaskContext = {
      env: this.env,
      now,
      receipt: (encf: string) => this.receipt(encf),
      updateReceipt: (id: string, changes: ReceiptChanges) => this.update(id, changes),
      issuerEndpoints: (companyId) => {
        let read = endpoints.get(companyId);
        if (!read) endpoints.set(companyId, (read = issuerEndpoints(this.env, companyId)));
        return read;
      },
    };
    await Promise.all(
      due.map(async (task) => {
        claimTask(this.db).run({ id: task.id, claimedUntil: new Date(Date.now() + TASK_CLAIM_MS).toISOString() });
        let outcome: TaskOutcome;
        try {
          outcome = await runTask(task, context);
        } catch (error) {
          outcome = { status: "retry", result: { error: (error as Error).message } };
        }
        const attempts = task.attempts + 1;
        settleTask(this.db).run({
          id: task.id,
          status: outcome.status === "retry" ? "pending" : outcome.status,
          attempts,
          lastResult: JSON.stringify(outcome.result ?? null).slice(0, 2000),
          nextAttemptAt: new Date(
            Date.now() + (outcome.status === "retry" ? taskBackoffMs(attempts) : 0),
          ).toISOString(),
          updatedAt: new Date().toISOString(),
        });
        if (outcome.then) this.enqueue(outcome.then);
      }),
    );
    return due.length;
  }

  /** Webhook deliveries to one endpoint, newest first, each naming its event's type and receipt. */
  webhookDeliveries(
    endpointId: string,
    limit: number,
  ): {
    id: string;
    status: string;
    attempts: number;
    event: string;
    encf: string | null;
    lastResult: string | null;
    createdAt: string;
    updatedAt: string | null;
  }[] {
    return this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.kind, "webhook"), sql`${tasks.orderingKey} LIKE ${`${endpointId}:%`}`))
      .orderBy(sql`${tasks.position} DESC`)
      .limit(limit)
      .all()
      .map((t) => ({
        id: t.id,
        status: t.status,
        attempts: t.attempts,
        ...deliveredEvent(t.payload),
        lastResult: t.lastResult,
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
      }));
  }

  /** Sends a delivery again (a failed one gets three more days); false when this month has no such delivery. */
  retryDelivery(endpointId: string, id: string): boolean {
    const now = Date.now();
    const changed = this.db
      .update(tasks)
      .set({
        status: "pending",
        nextAttemptAt: new Date(now).toISOString(),
        deadline: new Date(now + TASK_DEADLINE_MS.webhook).toISOString(),
        claimedUntil: null,
      })
      .where(and(eq(tasks.id, id), eq(tasks.kind, "webhook"), sql`${tasks.orderingKey} LIKE ${`${endpointId}:%`}`))
      .returning({ id: tasks.id })
      .all();
    this.schedule();
    return changed.length > 0;
  }

  /**
   * Moves every due receipt forward once (send, recover with consultatrackids, or poll), each
   * under its own claim, then sets the alarm for the next due one. A receipt that is still
   * pending waits its back-off; DGII rejecting one nobody was waiting for goes to the audit log.
   */
  override async alarm(): Promise<void> {
    // The alarm that fired is no longer pending: whatever this run or a request schedules is set.
    this.alarmAt = null;
    const now = new Date();
    this.alarmRunStartedAt = now.getTime();
    try {
      await this.moveDueForward(now);
    } finally {
      this.alarmRunStartedAt = null;
    }
  }

  /** One run of the alarm (see alarm()). */
  private async moveDueForward(now: Date): Promise<void> {
    let due = dueReceipts(this.db).all({ now: now.toISOString() });
    // Receipts that only wait for DGII to come back stay put while its status service says it is
    // still down: their next turn, without a claim, an archive read or a change. While the last
    // answer is still the one DGII's client would reuse, it is not asked again, nor the issuer read.
    if (due.length && due.every(awaitsFirstSend) && now.getTime() < this.dgiiDownUntil)
      due = this.postponeWaiting(due, now);
    // The issuer, read once per run for every receipt of it (the object holds one issuer's month).
    // (Failing to read it leaves each receipt to its own attempt, as before.)
    const company = due.length ? await companyById(this.env, due[0]!.companyId).catch(() => undefined) : undefined;
    if (company && due.some(awaitsFirstSend) && !(await dgiiAvailableFor(this.env, company))) {
      this.dgiiDownUntil = now.getTime() + dgiiStatusTtlMs(this.env);
      due = this.postponeWaiting(due, now);
    }
    // Side by side: a backlog (a till's batch) is sent at DGII's pace, not one round trip after
    // another (the runtime bounds the connections open at once). A credit or debit note waits for
    // the receipt it modifies when both are due, so DGII never hears of the note first.
    const moved = new Map<string, Promise<void>>();
    for (const receipt of due) {
      const original = receipt.ncfModificado ? moved.get(receipt.ncfModificado) : undefined;
      const work = (async () => {
        await original;
        const claimed = this.claim(receipt.id);
        if (!claimed) return;
        try {
          await moveForward(
            this.env,
            claimed,
            { update: async (id, changes) => this.update(id, changes) },
            now,
            company,
          );
        } catch (error) {
          console.error(`alarm: ${receipt.encf} failed`, error);
        } finally {
          this.db
            .update(receipts)
            .set({ retries: sql`${receipts.retries} + 1` })
            .where(eq(receipts.id, receipt.id))
            .run();
          this.release(receipt.id);
        }
      })();
      moved.set(receipt.encf, work);
    }
    await Promise.all(moved.values());
    const checked = await this.confirmDuePurchases(now, company);
    const ranTasks = await this.runDueTasks(now);
    if (due.length === ALARM_BATCH || ranTasks === ALARM_BATCH || checked === CONFIRMATIONS_PER_RUN)
      await this.setAlarmAt(Date.now());
    this.schedule();
  }

  // ------------------------------------------------------------------------------ purchases

  /** Records a purchase; null when the supplier's e-NCF is here already. */
  addPurchase(values: NewPurchase): Purchase | null {
    const added = this.db.insert(purchases).values(values).onConflictDoNothing().returning().get() ?? null;
    if (added) this.enqueue([eventTask(added.companyId, `purchase:${added.id}`, purchaseEvent(added))]);
    return added;
  }

  purchase(rncEmisor: string, encf: string): Purchase | null {
    return (
      this.db
        .select()
        .from(purchases)
        .where(and(eq(purchases.rncEmisor, rncEmisor), eq(purchases.encf, encf)))
        .get() ?? null
    );
  }

  purchaseById(id: string): Purchase | null {
    return this.db.select().from(purchases).where(eq(purchases.id, id)).get() ?? null;
  }

  updatePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null {
    return this.db.update(purchases).set(changes).where(eq(purchases.id, id)).returning().get() ?? null;
  }

  /**
   * Sets our commercial approval once: null when one was decided already (the first stands).
   */
  decidePurchase(id: string, changes: Partial<NewPurchase>): Purchase | null {
    return (
      this.db
        .update(purchases)
        .set(changes)
        .where(and(eq(purchases.id, id), isNull(purchases.approvalStatus)))
        .returning()
        .get() ?? null
    );
  }

  /**
   * Asks DGII about the purchases due for a check at `now` (the alarm's clock; tests pass theirs)
   * and records each answer; one newly found unknown to DGII is audited and announced
   * (purchase.unconfirmed). Returns how many were checked.
   */
  async confirmDuePurchases(now: Date, issuer?: Company): Promise<number> {
    const due = this.db
      .select()
      .from(purchases)
      .where(lte(purchases.dgiiNextCheckAt, now.toISOString()))
      .orderBy(asc(purchases.dgiiNextCheckAt))
      .limit(CONFIRMATIONS_PER_RUN)
      .all();
    if (!due.length) return 0;
    const company = issuer ?? (await companyById(this.env, due[0]!.companyId).catch(() => undefined));
    await Promise.all(
      due.map(async (purchase) => {
        const outcome = company
          ? await checkPurchaseAtDgii(this.env, company, purchase, now)
          : { ...judgeAnswer(purchase, undefined, now), detail: "The buyer could not be read." };
        const after = this.db
          .update(purchases)
          .set({
            dgiiStatus: outcome.dgiiStatus,
            dgiiNextCheckAt: outcome.dgiiNextCheckAt,
            dgiiChecks: sql`${purchases.dgiiChecks} + 1`,
            dgiiCheckedAt: now.toISOString(),
          })
          .where(eq(purchases.id, purchase.id))
          .returning()
          .get();
        if (!after || after.dgiiStatus === purchase.dgiiStatus) return;
        this.audit({
          companyId: purchase.companyId,
          actor: "alarm",
          action: "consultaestado (purchase)",
          code: `purchase_${after.dgiiStatus}`,
          status: 200,
          detail: `${purchase.encf} from ${purchase.rncEmisor}: ${outcome.detail}`,
          requestId: `purchase-check:${purchase.id}:${after.dgiiChecks}`,
        });
        if (after.dgiiStatus === "not_found_at_dgii") {
          this.enqueue([
            eventTask(after.companyId, `purchase:${after.id}`, purchaseEvent(after, now, "purchase.unconfirmed")),
          ]);
        }
      }),
    );
    this.schedule();
    return due.length;
  }

  /**
   * The accountant counts a purchase DGII does not confirm (never one DGII rejected): the reason,
   * who and when are kept on the row (the route audits it). Null: no such purchase, or rejected.
   */
  overridePurchaseConfirmation(id: string, override: { reason: string; by: string }, now: Date): Purchase | null {
    return (
      this.db
        .update(purchases)
        .set({ dgiiOverrideReason: override.reason, dgiiOverrideBy: override.by, dgiiOverrideAt: now.toISOString() })
        .where(and(eq(purchases.id, id), sql`${purchases.dgiiStatus} <> 'rejected'`))
        .returning()
        .get() ?? null
    );
  }

  deletePurchase(id: string): void {
    this.db.delete(purchases).where(eq(purchases.id, id)).run();
  }

  // ---------------------------------------------------------------------------------- audit

  audit(entry: AuditEntry): void {
    const { companyId = null, actor = null, action, code, status, requestId } = entry;
    const createdAt = entry.createdAt ?? new Date().toISOString();
    insertAudit(this.db).run({
      companyId,
      actor,
      action,
      code,
      status,
      detail: entry.detail?.slice(0, 1000) ?? null,
      requestId,
      createdAt,
    });
  }

  // -------------------------------------------------------------------------------- reports

  /** One month's slice of a report page: rows after the cursor in report order, and the count. */
  reportSlice(name: ReportName, query: ReportSliceQuery): ReportSlice {
    const spec = REPORT_SPECS[name];
    const sort = sql.raw(spec.sortColumn);
    const tie = sql.raw(spec.tieColumn);
    const filter: SQL[] = [sql`1 = 1`];
    if (query.from !== undefined) filter.push(sql`${sort} >= ${query.from}`);
    if (query.until !== undefined) filter.push(sql`${sort} < ${query.until}`);
    for (const [name, value] of Object.entries(query.filters ?? {}) as [ReportFilter, string][]) {
      const by = spec.filters[name];
      if (!by || value === undefined) continue;
      if (by.kind === "estado") filter.push(sql.raw(Object.hasOwn(ESTADO_SQL, value) ? ESTADO_SQL[value]! : "0 = 1"));
      else if (by.kind === "equals") filter.push(sql`${sql.raw(by.column)} = ${value}`);
      else filter.push(sql`substr(${sql.raw(by.column)}, 1, ${value.length}) = ${value}`);
    }
    const page = [...filter];
    if (query.after)
      page.push(sql`(${sort} > ${query.after[0]} OR (${sort} = ${query.after[0]} AND ${tie} > ${query.after[1]}))`);
    const columns = sql.raw(
      Object.entries(spec.columns)
        .map(([out, column]) => `${column} AS "${out}"`)
        .join(", "),
    );
    const table = sql.raw(spec.table);
    const rows = this.db.all<Record<string, string | number | null>>(
      sql`SELECT ${columns} FROM ${table} WHERE ${sql.join(page, sql` AND `)} ORDER BY ${sort}, ${tie} LIMIT ${query.limit}`,
    );
    const count = this.db.get<{ total: number }>(
      sql`SELECT COUNT(*) AS total FROM ${table} WHERE ${sql.join(filter, sql` AND `)}`,
    );
    return { rows, total: Number(count?.total ?? 0) };
  }

  // ----------------------------------------------------- monthly formats (606/607/608), archive

  /** The month's receipts in e-NCF order after `query.after` (optionally of some types), a page at a time. */
  receiptsPage(query: monthly.MonthPageQuery): Receipt[] {
    return monthly.receiptsPage(this.db, query);
  }

  /** The month's purchases in id order after `query.after`, a page at a time. */
  purchasesPage(query: monthly.MonthPageQuery): Purchase[] {
    return monthly.purchasesPage(this.db, query);
  }

  /** Rows whose document figures are still to be read from their XML, and how many there are. */
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

  /** Receipts of a voided range that were signed but never sent (now Anulado), for the 608. */
  voidedReceipts(tipoeCF: string, firstNumber: number, lastNumber: number): { encf: string; issueDate: string }[] {
    return monthly.voidedReceipts(this.db, tipoeCF, firstNumber, lastNumber);
  }

  /** The E32 under 250,000 DGII accepted this month, summed for the 607's summary. */
  rfceSums(): monthly.RfceSums {
    return monthly.rfceSums(this.db);
  }

  // --------------------------------------------------------------------------------- shifts

  /** A till's upload of a shift (cuadre de caja): stored, closed, or refused once closed. */
  putShift(row: NewShift): PutShiftOutcome {
    return putShift(this.db, row);
  }

  /** One month's slice of GET /reports/turnos. */
  shiftSlice(query: ShiftSliceQuery): { rows: Shift[]; total: number } {
    return shiftSlice(this.db, query);
  }

  // ------------------------------------------------------------------------------ migration

  /** Rows moved from the D1 ledger (`ledger:migrate`); running it again changes nothing. */
  importRows(rows: { receipts: NewReceipt[]; purchases: NewPurchase[]; audit: AuditEntry[] }): void {
    this.ctx.storage.transactionSync(() => {
      for (const row of rows.receipts) {
        // A receipt still pending in D1 is due at once here: the alarm finishes it.
        const pending = !isFinal(row.status);
        this.db
          .insert(receipts)
          .values({ ...row, claimedUntil: null, nextAttemptAt: pending ? new Date().toISOString() : null })
          .onConflictDoNothing()
          .run();
      }
      for (const row of rows.purchases) this.db.insert(purchases).values(row).onConflictDoNothing().run();
      for (const row of rows.audit) {
        const known = this.db
          .select({ id: auditLog.id })
          .from(auditLog)
          .where(
            and(
              eq(auditLog.requestId, row.requestId),
              eq(auditLog.createdAt, row.createdAt!),
              eq(auditLog.code, row.code),
            ),
          )
          .get();
        if (!known) this.db.insert(auditLog).values(row).run();
      }
    });
    this.schedule();
  }
}

/** A delivery's event type and the e-NCF it is about (null for an event about no receipt). */
function deliveredEvent(payload: string): { event: string; encf: string | null } {
  const { event } = JSON.parse(payload) as { event: WebhookEvent };
  const encf = (event.data as { encf?: unknown } | undefined)?.encf;
  return { event: event.type, encf: typeof encf === "string" ? encf : null };
}
