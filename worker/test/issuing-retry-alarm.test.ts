// The retry alarm of a month object: a receipt DGII could not take is tried again with back-off
// (1, 2, 4 … seconds, at most every 10 minutes), never while someone holds it, and the receipts
// that keep failing are pushed back so they never crowd out a newer one. Its follow-up events of a
// burst are gathered into one run.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { type MonthAlarmHost, runMonthAlarm } from "../src/after-dgii/month-alarm.ts";
import { receiptMonth } from "../src/ledger/client.ts";
import type { AlarmSchedule } from "../src/objects/alarm-schedule.ts";
import { receipts } from "../src/ledger/month/month-tables.ts";
import { EVENT_GATHER_MS } from "../src/ledger/month/month-tasks.ts";
import type { ReceiptMonth } from "../src/objects/receipt-month.ts";
import type { NewReceipt } from "../src/ledger/rows.ts";
import { clearFaults, issue, issueRequest, issuer, received, setFault } from "./support/issuing.ts";
import { holdDgiiDown, holdReceipt, monthSql, receiptRow, runRetryAlarms, updateReceiptRow } from "./support/ledger.ts";
import { until } from "./support/until.ts";

afterEach(clearFaults);

const sentEcf = async (rnc: string, encf: string) => (await received(rnc, encf)).filter((r) => r.kind === "ecf").length;
const row = async (companyId: string, encf: string) => (await receiptRow(companyId, encf))!;
/** Seconds from now until the receipt is due again. */
const dueIn = async (companyId: string, encf: string) =>
  (Date.parse((await row(companyId, encf)).nextAttemptAt!) - Date.now()) / 1000;

async function contingency(token: string): Promise<string> {
  const { status, body } = await issue(token, issueRequest("31"));
  expect(status).toBe(503);
  return body.encf;
}

describe("the retry alarm", () => {
  it("backs off a receipt that stays pending: 1, 2, 4 … seconds, at most 10 minutes; sends it once when DGII is back", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const encf = await contingency(token);
    // Released by its request: due a second later.
    expect(await dueIn(company.id, encf)).toBeLessThanOrEqual(1);
    const recorded = await row(company.id, encf);
    let previous = 0;
    for (let round = 0; round < 3; round++) {
      await runRetryAlarms(company.id);
      // (The runtime's own alarm may have run one more attempt meanwhile: read how many there were.)
      const { status, retries } = await row(company.id, encf);
      expect(status).toBe("contingency");
      expect(retries).toBeGreaterThan(previous);
      previous = retries;
      const wait = await dueIn(company.id, encf);
      expect(wait).toBeGreaterThan(2 ** retries - 1.5);
      expect(wait).toBeLessThanOrEqual(2 ** retries);
      // While DGII's status service says down, a receipt never sent only gets its next turn.
      expect((await row(company.id, encf)).updatedAt).toBe(recorded.updatedAt);
      expect((await row(company.id, encf)).dgiiMensajes).toBe(recorded.dgiiMensajes);
    }
    // After many failures: every 10 minutes, no more often.
    await updateReceiptRow(company.id, encf, "retries = 15");
    await runRetryAlarms(company.id);
    expect(await dueIn(company.id, encf)).toBeGreaterThan(590);

    await clearFaults();
    await until(
      async () => (await row(company.id, encf)).status === "accepted",
      () => runRetryAlarms(company.id),
    );
    expect((await row(company.id, encf)).status).toBe("accepted");
    expect((await row(company.id, encf)).nextAttemptAt).toBeNull();
    expect(await sentEcf(company.rnc, encf)).toBe(1);
  });

  it("while DGII's last 'down' stands, waiting receipts are neither sent nor DGII asked again, and take their turn together after it", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const first = await contingency(token);
    const month = (await row(company.id, first)).issueDate.slice(0, 7);
    await holdDgiiDown(company.id, month, Date.now() + 60_000);
    // A receipt recorded meanwhile waits with the others, not a second from now.
    const second = await contingency(token);
    expect(await dueIn(company.id, second)).toBeGreaterThan(58);
    // DGII is back, but the object does not ask before its last answer ends: nothing is sent.
    await clearFaults();
    await runRetryAlarms(company.id);
    for (const encf of [first, second]) {
      expect((await row(company.id, encf)).status).toBe("contingency");
      expect(await sentEcf(company.rnc, encf)).toBe(0);
      expect(await dueIn(company.id, encf)).toBeGreaterThan(58);
    }
    // Once it ends, the alarm asks, finds DGII up and sends each receipt once.
    await holdDgiiDown(company.id, month, 0);
    await until(
      async () => (await row(company.id, second)).status === "accepted",
      () => runRetryAlarms(company.id),
    );
    for (const encf of [first, second]) {
      expect((await row(company.id, encf)).status).toBe("accepted");
      expect(await sentEcf(company.rnc, encf)).toBe(1);
    }
  });

  it("a pending alarm is moved earlier, never later: it runs early and reschedules, sparing a storage write per change", async () => {
    const { company } = await issuer();
    const start = Date.now();
    const minutes = (n: number) => start + n * 60_000;
    type Month = { db: ReceiptMonth["db"]; alarms: { schedule(): void } };
    const inMonth = <T>(work: (month: Month, state: DurableObjectState) => T | Promise<T>) =>
      runInDurableObject(receiptMonth(env, company.id, "2025-04"), (instance, state) =>
        work(instance as unknown as Month, state),
      );
    // A receipt waiting for DGII, due `at`, written straight into the month object; then it schedules.
    const waiting = (n: number, at: number) =>
      inMonth((month) => {
        const row: NewReceipt = {
          ...{
            id: crypto.randomUUID(),
            companyId: company.id,
            encf: `E31${String(n).padStart(10, "0")}`,
            tipoeCF: "31",
            issueDate: "2025-04-01",
            montoTotal: "1.00",
          },
          ...{
            securityCode: "ABC123",
            fechaHoraFirma: "01-04-2025 10:15:00",
            timbreUrl: "https://ecf.dgii.gov.do/testecf/consultatimbre",
            xmlKey: `k/${n}`,
            xmlSha256: "x",
          },
          ...{
            documentHash: "y",
            dgiiPath: "ecf",
            status: "contingency",
            source: "api",
            nextAttemptAt: new Date(at).toISOString(),
          },
        };
        month.db.insert(receipts).values(row).run();
        month.alarms.schedule();
      });
    const alarm = () => inMonth((_month, state) => state.storage.getAlarm());

    await waiting(1, minutes(10));
    expect(await alarm()).toBe(minutes(10));
    await waiting(2, minutes(5));
    expect(await alarm()).toBe(minutes(5));
    // The 5-minute receipt is put off (as a claim or a change would); the next change schedules.
    await monthSql(
      company.id,
      "2025-04",
      "UPDATE receipts SET next_attempt_at = ?1 WHERE encf = 'E310000000002'",
      new Date(minutes(30)).toISOString(),
    );
    await waiting(3, minutes(20));
    expect(await alarm()).toBe(minutes(5));
    // The alarm runs early, finds nothing due, and sets itself for the receipt due first.
    await inMonth((month) => (month as unknown as ReceiptMonth).alarm());
    expect(await alarm()).toBe(minutes(10));
    expect(await monthSql(company.id, "2025-04", "SELECT status, retries FROM receipts ORDER BY encf")).toEqual(
      Array(3).fill({ status: "contingency", retries: 0 }),
    );
  });

  it("leaves alone a receipt someone holds (a request transmitting it), and takes it once the hold lapses", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const encf = await contingency(token);
    await clearFaults();
    await holdReceipt(company.id, encf);
    await runRetryAlarms(company.id);
    expect((await row(company.id, encf)).status).toBe("contingency");
    expect(await sentEcf(company.rnc, encf)).toBe(0);
    // The holder died: its claim lapses and the alarm sends the receipt.
    await until(
      async () => (await row(company.id, encf)).status === "accepted",
      () => runRetryAlarms(company.id, { lapseClaims: true }),
    );
    expect((await row(company.id, encf)).status).toBe("accepted");
    expect(await sentEcf(company.rnc, encf)).toBe(1);
  });

  it("a hold that lapses the moment the alarm runs is over: the receipt is due then, as the alarm was set for", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const encf = await contingency(token);
    const month = (await row(company.id, encf)).issueDate.slice(0, 7);
    // The runtime's own alarm leaves the receipt alone until the run below (DGII held down for the
    // object): on a slow machine it would otherwise fire once DGII is back, mid-way through this test.
    await holdDgiiDown(company.id, month, Date.now() + 3_600_000);
    await clearFaults();
    await runInDurableObject(receiptMonth(env, company.id, month), async (instance, state) => {
      const object = instance as unknown as { alarms: AlarmSchedule; host: MonthAlarmHost };
      object.host.dgiiDownUntil = 0;
      // The run starts at `lapse`, the instant the hold ends and the receipt is due (the alarm's time).
      const lapse = new Date();
      state.storage.sql.exec(
        "UPDATE receipts SET next_attempt_at = ?1, claimed_until = ?1 WHERE encf = ?2",
        lapse.toISOString(),
        encf,
      );
      await object.alarms.run(lapse, (now) => runMonthAlarm(object.host, now));
    });
    expect((await row(company.id, encf)).sendAttempts).toBe(1);
    expect(await sentEcf(company.rnc, encf)).toBe(1);
  });

  it("while an alarm runs, the next is set strictly after the run's start (the runtime deletes the one it fired for when the run ends)", async () => {
    const { company } = await issuer();
    type Month = { db: ReceiptMonth["db"]; alarms: { schedule(): void; runStartedAt: number | null } };
    const next = await runInDurableObject(receiptMonth(env, company.id, "2025-06"), async (instance, state) => {
      const month = instance as unknown as Month;
      // A receipt due a minute from now, and a run that started then (its clock standing still at the
      // time of the alarm it fired for, which was set for this receipt).
      const due = Date.now() + 60_000;
      const row: NewReceipt = {
        ...{
          id: crypto.randomUUID(),
          companyId: company.id,
          encf: "E310000000001",
          tipoeCF: "31",
          issueDate: "2025-06-01",
          montoTotal: "1.00",
        },
        ...{
          securityCode: "ABC123",
          fechaHoraFirma: "01-06-2025 10:15:00",
          timbreUrl: "https://ecf.dgii.gov.do/testecf/consultatimbre",
          xmlKey: "k/1",
          xmlSha256: "x",
        },
        ...{
          documentHash: "y",
          dgiiPath: "ecf",
          status: "contingency",
          source: "api",
          nextAttemptAt: new Date(due).toISOString(),
        },
      };
      month.db.insert(receipts).values(row).run();
      month.alarms.runStartedAt = due;
      month.alarms.schedule();
      month.alarms.runStartedAt = null;
      return { due, alarm: await state.storage.getAlarm() };
    });
    // Not `due` itself: that alarm is the one the runtime deletes when the run ends.
    expect(next.alarm).toBe(next.due + 1);
  });

  it("receipts that keep failing are pushed back, so a newer one is sent first", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const stuck = [await contingency(token), await contingency(token)];
    // They have failed for a long time: next try in ten minutes.
    const later = new Date(Date.now() + 600_000).toISOString();
    for (const encf of stuck) await updateReceiptRow(company.id, encf, "retries = 12, next_attempt_at = ?1", later);
    const fresh = await contingency(token);
    await clearFaults();
    // The alarm as the runtime fires it (nothing is made due by hand): only what is due goes.
    const month = (await row(company.id, fresh)).issueDate.slice(0, 7);
    await until(async () => (await row(company.id, fresh)).status === "accepted");
    expect((await row(company.id, fresh)).status).toBe("accepted");
    expect(await sentEcf(company.rnc, fresh)).toBe(1);
    for (const encf of stuck) {
      expect(await sentEcf(company.rnc, encf)).toBe(0);
      expect((await row(company.id, encf)).status).toBe("contingency");
    }
    const pending = await monthSql(
      company.id,
      month,
      "SELECT COUNT(*) AS n FROM receipts WHERE status = 'contingency'",
    );
    expect(pending).toEqual([{ n: 2 }]);
  });

  it("events right after a task run wait for one run a second later; a lone event is due at once", async () => {
    const { company } = await issuer();
    const inMonth = <T>(work: (month: ReceiptMonth, state: DurableObjectState) => T | Promise<T>) =>
      runInDurableObject(receiptMonth(env, company.id, "2025-05"), (instance, state) =>
        work(instance as ReceiptMonth, state),
      );
    const emit = (subject: string) =>
      inMonth((month) =>
        month.followUp().emit(company.id, subject, {
          type: "quota.near_limit",
          timestamp: new Date().toISOString(),
          data: { rncEmisor: company.rnc },
        }),
      );
    const events = () =>
      monthSql(
        company.id,
        "2025-05",
        "SELECT ordering_key AS subject, status, next_attempt_at AS due FROM tasks ORDER BY position",
      );

    await emit("lone");
    const [lone] = await events();
    // Due at once (the runtime's alarm may even have run it by now).
    expect(lone).toMatchObject({ subject: "lone" });
    expect(["pending", "done"]).toContain(lone!.status);
    expect(Date.parse(String(lone!.due))).toBeLessThanOrEqual(Date.now());

    // (The runtime may have run it already, as soon as it was due.)
    await inMonth((month) => month.alarm());
    expect((await events())[0]).toMatchObject({ subject: "lone", status: "done" });
    const ranAt = await inMonth((month) => (month as unknown as { host: { tasksRanAt: number } }).host.tasksRanAt);
    expect(ranAt).toBeGreaterThan(0);
    // A burst right after that run: due together, a second after it (or when queued, should this
    // machine take longer than that to get here), and the alarm set for them.
    await emit("burst-1");
    await emit("burst-2");
    const emittedBy = Date.now();
    const burst = (await events()).slice(1);
    const readBy = Date.now();
    expect(burst[1]!.due).toBe(burst[0]!.due);
    const due = Date.parse(String(burst[0]!.due));
    // Read before they were due, nothing (the runtime's alarm included) can have run them.
    if (readBy < due) expect(burst.map((e) => e.status)).toEqual(["pending", "pending"]);
    expect(due).toBeGreaterThanOrEqual(ranAt + EVENT_GATHER_MS);
    expect(due).toBeLessThanOrEqual(Math.max(ranAt + EVENT_GATHER_MS, emittedBy));
    expect(await inMonth((_month, state) => state.storage.getAlarm())).toBeLessThanOrEqual(due);
    // An alarm before then leaves them; one run when they are due takes both.
    if (Date.now() < due - 100) {
      await inMonth((month) => month.alarm());
      expect((await events()).slice(1).map((e) => e.status)).toEqual(["pending", "pending"]);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 10));
    await inMonth((month) => month.alarm());
    expect((await events()).map((e) => e.status)).toEqual(["done", "done", "done"]);
  });
});
