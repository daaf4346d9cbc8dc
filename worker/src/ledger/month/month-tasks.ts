// A month object's follow-up tasks as rows (after-dgii/ decides and runs them): queued in the
// same synchronous step as the change that causes them, taken by the alarm under a claim, and
// settled with their outcome. Tasks with the same ordering key run strictly one after another.
import { and, eq, sql } from "drizzle-orm";
import { CREDIT_NOTE_GRACE_MS, TASK_DEADLINE_MS, type NewTask, type Task, type TaskKind } from "./task-types.ts";
import { tasks } from "./month-tables.ts";
import type { MonthDb } from "./month-receipts.ts";
import { ALARM_BATCH } from "./month-receipts.ts";
import { param, preparedOnce } from "../prepared.ts";

/**
 * How long the alarm holds a follow-up task it is running: longer than the slowest attempt (a
 * directory lookup, the receiver's authentication and the post, each with its timeout), so a
 * slow attempt is never run twice at once; it only matters if the object dies mid-task.
 */
export const TASK_CLAIM_MS = 5 * 60_000;

const claimTaskQuery = preparedOnce((db: MonthDb) =>
  db
    .update(tasks)
    .set({ claimedUntil: param("claimedUntil") })
    .where(eq(tasks.id, param("id")))
    .prepare(),
);
const settleTaskQuery = preparedOnce((db: MonthDb) =>
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
const insertTaskQuery = preparedOnce((db: MonthDb) =>
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

/** Queues tasks: each due at `dueAt(kind)`, tried until `now` + its kind's deadline. */
export function insertTasks(
  db: MonthDb,
  list: NewTask[],
  dueAt: (kind: TaskKind) => number,
  deadlineMs: Record<TaskKind, number>,
  now: number,
): void {
  for (const task of list) {
    insertTaskQuery(db).run({
      id: task.id ?? crypto.randomUUID(),
      kind: task.kind,
      orderingKey: task.orderingKey,
      payload: JSON.stringify(task.payload),
      nextAttemptAt: new Date(dueAt(task.kind)).toISOString(),
      deadline: new Date(now + deadlineMs[task.kind]).toISOString(),
    });
  }
}

/**
 * Events queued within this long of the object's last task run wait for the next one: a burst of
 * receipts (a busy till, a backlog in contingency) wakes the alarm and reads the webhook
 * endpoints once per second, not once per receipt. A lone event is due at once.
 */
export const EVENT_GATHER_MS = 1000;

/** Queues tasks (events gathered after `tasksRanAt`); returns when the first of them is due. */
export function queueTasks(db: MonthDb, list: NewTask[], tasksRanAt: number): number {
  const now = Date.now();
  const eventsDue = Math.max(now, tasksRanAt + EVENT_GATHER_MS);
  const dueAt = (kind: TaskKind) =>
    kind === "event" ? eventsDue : kind === "credit_note" ? now + CREDIT_NOTE_GRACE_MS : now;
  insertTasks(db, list, dueAt, TASK_DEADLINE_MS, now);
  // (A task behind another of its ordering key is due later still.)
  return Math.min(...list.map((task) => dueAt(task.kind)));
}

/** Due tasks that are first in line for their ordering key. */
export function dueTasks(db: MonthDb, now: Date): Task[] {
  return db.all<Task>(sql`
    SELECT id, kind, ordering_key AS "orderingKey", payload, attempts, deadline, created_at AS "createdAt" FROM tasks AS t
    WHERE t.status = 'pending' AND t.next_attempt_at <= ${now.toISOString()}
      AND (t.claimed_until IS NULL OR t.claimed_until <= ${now.toISOString()})
      AND NOT EXISTS (SELECT 1 FROM tasks AS e
        WHERE e.ordering_key = t.ordering_key AND e.status = 'pending' AND e.position < t.position)
    ORDER BY t.position LIMIT ${ALARM_BATCH}`);
}

export function claimTask(db: MonthDb, id: string): void {
  claimTaskQuery(db).run({ id, claimedUntil: new Date(Date.now() + TASK_CLAIM_MS).toISOString() });
}

/** A task's attempt is over: done, failed, or pending again at `nextAttemptAt`. */
export function settleTask(
  db: MonthDb,
  id: string,
  settled: { status: "pending" | "done" | "failed"; attempts: number; lastResult: unknown; nextAttemptAt: number },
): void {
  settleTaskQuery(db).run({
    id,
    status: settled.status,
    attempts: settled.attempts,
    lastResult: JSON.stringify(settled.lastResult ?? null).slice(0, 2000),
    nextAttemptAt: new Date(settled.nextAttemptAt).toISOString(),
    updatedAt: new Date().toISOString(),
  });
}

/**
 * Only the month object's alarm claims tasks, and only one instance of the object runs at a
 * time: a claim found when the object starts was its previous instance's, which died mid-task.
 */
export function releaseTasksOfDeadInstance(storage: DurableObjectStorage): void {
  storage.sql.exec("UPDATE tasks SET claimed_until = NULL WHERE status = 'pending' AND claimed_until IS NOT NULL");
}

/** A webhook delivery as the API lists it: its event's type and the e-NCF it is about. */
export interface WebhookDelivery {
  id: string;
  status: string;
  attempts: number;
  event: string;
  encf: string | null;
  lastResult: string | null;
  createdAt: string;
  updatedAt: string | null;
}

const toEndpoint = (endpointId: string) => sql`${tasks.orderingKey} LIKE ${`${endpointId}:%`}`;

/** Webhook deliveries to one endpoint, newest first. */
export function webhookDeliveries(db: MonthDb, endpointId: string, limit: number): WebhookDelivery[] {
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.kind, "webhook"), toEndpoint(endpointId)))
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

/** Makes a delivery pending again until `deadline`; false when this month has no such delivery. */
export function retryDelivery(db: MonthDb, endpointId: string, id: string, now: number, deadline: number): boolean {
  const changed = db
    .update(tasks)
    .set({
      status: "pending",
      nextAttemptAt: new Date(now).toISOString(),
      deadline: new Date(deadline).toISOString(),
      claimedUntil: null,
    })
    .where(and(eq(tasks.id, id), eq(tasks.kind, "webhook"), toEndpoint(endpointId)))
    .returning({ id: tasks.id })
    .all();
  return changed.length > 0;
}

/** A delivery's event type and the e-NCF it is about (null for an event about no receipt). */
function deliveredEvent(payload: string): { event: string; encf: string | null } {
  const { event } = JSON.parse(payload) as { event: { type: string; data?: unknown } };
  const encf = (event.data as { encf?: unknown } | undefined)?.encf;
  return { event: event.type, encf: typeof encf === "string" ? encf : null };
}
