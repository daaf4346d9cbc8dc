// Reading and steering the issuer ledger's Durable Objects from workerd tests: rows by e-NCF,
// SQL inside an object (the real SQLite of the real object), and the retry alarm run on demand.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { findReceipt, issuerLedger, receiptMonth } from "../../src/ledger/client.ts";
import type { Numbered } from "../../src/ledger/issuer/receipt-numbering.ts";
import type { ReceiptMonth } from "../../src/objects/receipt-month.ts";
import type { IssuerLedger } from "../../src/objects/issuer-ledger.ts";
import type { NewReceipt, Receipt } from "../../src/ledger/rows.ts";
import { unwrap } from "../../src/ledger/refusal.ts";
import { problemOf } from "../../src/errors/problem-of.ts";
import { drIsoDate, drMonth } from "@ecf/shared";
import { ABANDONED_CLAIM_MS } from "../../src/issuing/issue.ts";
import { confirmDuePurchases, type MonthAlarmHost } from "../../src/after-dgii/month-alarm.ts";

type Row = Record<string, SqlStorageValue>;

/** A receipt as its month object holds it (undefined when the ledger has none). */
export async function receiptRow(companyId: string, encf: string): Promise<Receipt | undefined> {
  return (await findReceipt(env, companyId, encf)) ?? undefined;
}

/** SQL inside the issuer's own object (sequences, usage_counters, device_leases, receipt_index, …). */
export function issuerSql(companyId: string, query: string, ...params: SqlStorageValue[]): Promise<Row[]> {
  return runInDurableObject(issuerLedger(env, companyId), (_instance, state) =>
    state.storage.sql.exec<Row>(query, ...params).toArray(),
  );
}

/** Ages every Idempotency-Key claim of the issuer past its life, as if the requests holding them had died. */
export async function abandonClaims(companyId: string): Promise<void> {
  const before = new Date(Date.now() - ABANDONED_CLAIM_MS - 1000).toISOString();
  await issuerSql(companyId, "UPDATE idempotency_keys SET created_at = ?1", before);
}

/** SQL inside one month object of the issuer. */
export function monthSql(
  companyId: string,
  month: string,
  query: string,
  ...params: SqlStorageValue[]
): Promise<Row[]> {
  return runInDurableObject(receiptMonth(env, companyId, month), (_instance, state) =>
    state.storage.sql.exec<Row>(query, ...params).toArray(),
  );
}

/** The months the issuer's ledger has objects for. */
export function ledgerMonths(companyId: string): Promise<string[]> {
  return issuerLedger(env, companyId).index().months();
}

/** The same SQL in every month object of the issuer, rows concatenated (months in order). */
export async function everyMonthSql(companyId: string, query: string, ...params: SqlStorageValue[]): Promise<Row[]> {
  const rows = await Promise.all(
    (await ledgerMonths(companyId)).map((month) => monthSql(companyId, month, query, ...params)),
  );
  return rows.flat();
}

/** The next e-NCF number of a type, as the issuer object holds it. */
export async function nextNumber(companyId: string, tipoeCF: string): Promise<number | undefined> {
  const [row] = await issuerSql(companyId, "SELECT next_number FROM sequences WHERE tipo_ecf = ?", tipoeCF);
  return row ? Number(row.next_number) : undefined;
}

/** The issuer's audit entries, oldest first, across its months. */
export async function auditRows(companyId: string, where = "1 = 1", ...params: SqlStorageValue[]): Promise<Row[]> {
  return everyMonthSql(companyId, `SELECT * FROM audit_log WHERE ${where} ORDER BY created_at, id`, ...params);
}

/**
 * Makes every pending receipt of the issuer due now (its back-off passed; with `lapseClaims`, a
 * request's hold too, as after a crash) and runs each month object's alarm once, as the runtime
 * would when the time comes.
 */
export async function runRetryAlarms(companyId: string, options: { lapseClaims?: boolean } = {}): Promise<void> {
  const past = new Date(Date.now() - 1000).toISOString();
  for (const month of await ledgerMonths(companyId)) {
    const stub = receiptMonth(env, companyId, month);
    await runInDurableObject(stub, async (instance, state) => {
      state.storage.sql.exec(
        // A claim held by an alarm already running stays: taking it over would send twice.
        `UPDATE receipts SET next_attempt_at = ?1 ${options.lapseClaims ? ", claimed_until = NULL" : ""} WHERE status IN ('signed', 'contingency', 'in_process')`,
        past,
      );
      await (instance as ReceiptMonth).alarm();
    });
  }
}

/**
 * Sets until when a month object holds DGII's last "down" (DGII_STATUS_TTL_MS is 0 in these tests,
 * so the alarm never keeps one by itself).
 */
export async function holdDgiiDown(companyId: string, month: string, until: number): Promise<void> {
  await runInDurableObject(receiptMonth(env, companyId, month), (instance) => {
    (instance as unknown as { host: { dgiiDownUntil: number } }).host.dgiiDownUntil = until;
  });
}

/** Holds a receipt (as a request transmitting it would) so the alarm leaves it alone for an hour. */
export async function holdReceipt(companyId: string, encf: string): Promise<void> {
  const receipt = (await findReceipt(env, companyId, encf))!;
  const until = new Date(Date.now() + 3_600_000).toISOString();
  await monthSql(
    companyId,
    receipt.issueDate.slice(0, 7),
    "UPDATE receipts SET claimed_until = ?1 WHERE encf = ?2",
    until,
    encf,
  );
}

/** Runs SQL that changes one receipt's row in its month object. */
export async function updateReceiptRow(
  companyId: string,
  encf: string,
  assignments: string,
  ...params: SqlStorageValue[]
): Promise<void> {
  const receipt = (await findReceipt(env, companyId, encf))!;
  await monthSql(
    companyId,
    receipt.issueDate.slice(0, 7),
    `UPDATE receipts SET ${assignments} WHERE encf = ?${params.length + 1}`,
    ...params,
    encf,
  );
}

/** Makes every pending follow-up task of the issuer (webhooks, delivery to the buyer) due now and runs the alarms. */
export async function runTaskAlarms(companyId: string): Promise<void> {
  const past = new Date(Date.now() - 1000).toISOString();
  for (const month of await ledgerMonths(companyId)) {
    await runInDurableObject(receiptMonth(env, companyId, month), async (instance, state) => {
      state.storage.sql.exec("UPDATE tasks SET next_attempt_at = ?1 WHERE status = 'pending'", past);
      await (instance as ReceiptMonth).alarm();
    });
  }
}

/** The issuer object's alarm (the certificate watch): when it is set for (epoch ms), or null. */
export function issuerAlarmAt(companyId: string): Promise<number | null> {
  return runInDurableObject(issuerLedger(env, companyId), (_instance, state) => state.storage.getAlarm());
}

/**
 * Runs the issuer object's alarm as the runtime would, its clock set to `at` (a day near a
 * certificate's expiry, years ahead of the test), and answers when it set itself for next.
 */
export function runIssuerAlarm(companyId: string, at: Date): Promise<number | null> {
  return runInDurableObject(issuerLedger(env, companyId), async (instance, state) => {
    const watch = (instance as unknown as { certificates: { clock: () => Date } }).certificates;
    const clock = watch.clock;
    watch.clock = () => at;
    try {
      await (instance as IssuerLedger).alarm();
    } finally {
      watch.clock = clock;
    }
    return state.storage.getAlarm();
  });
}

/**
 * Numbers one receipt through the issuer object exactly as the API does (quota unit, e-NCF,
 * index), without issuing it; refusals come back as the ApiProblem the route would answer.
 */
export async function allocate(companyId: string, tipoeCF: string, now = new Date(), limit = 1_000_000) {
  const request = {
    tipoeCF,
    month: drMonth(now),
    today: drIsoDate(now),
    quota: { month: drMonth(now), limit },
    now: now.toISOString(),
  };
  try {
    return numberedOf(await unwrap(issuerLedger(env, companyId).numbering().number(request)));
  } catch (error) {
    throw problemOf(error) ?? error;
  }
}

/** The number `IssuerLedger.number` took, for a request without an Idempotency-Key (never held by another). */
export function numberedOf(result: { held: unknown } | { held: null; numbered: Numbered }): Numbered {
  if (!("numbered" in result)) throw new Error("a request without an Idempotency-Key found its key held");
  return result.numbered;
}

/** Sets this month's count of receipts against the quota. */
export async function setInvoicesThisMonth(companyId: string, invoices: number, now = new Date()): Promise<void> {
  await issuerSql(
    companyId,
    "INSERT INTO usage_counters (month, invoices) VALUES (?1, ?2) ON CONFLICT (month) DO UPDATE SET invoices = ?2",
    drMonth(now),
    invoices,
  );
}

/** Puts a receipt row straight into the ledger (its month object and the issuer's index), as a fixture. */
export async function putReceipt(row: NewReceipt): Promise<void> {
  const month = row.issueDate.slice(0, 7);
  await receiptMonth(env, row.companyId, month)
    .maintenance()
    .importRows({ receipts: [row], purchases: [], audit: [] });
  await issuerLedger(env, row.companyId)
    .maintenance()
    .importRows({
      sequences: [],
      usageCounters: [],
      idempotencyKeys: [],
      deviceLeases: [],
      receipts: [{ tipoeCF: row.tipoeCF, number: Number(row.encf.slice(3)), month }],
      purchases: [],
      months: [month],
    });
}

/**
 * Bulk fixtures: rows inserted straight into the month objects' SQLite (each row into the month
 * `monthOf` names, one runInDurableObject per month, statements of at most 100 parameters inside
 * one transaction), and those months registered in the issuer object (ledger_months).
 * `rowSql` is one row's `(…)` with `?` placeholders for its `paramsPerRow` values.
 */
export async function insertIntoMonths(
  companyId: string,
  sqlHead: string,
  rowSql: string,
  paramsPerRow: number,
  rows: SqlStorageValue[][],
  monthOf: (row: SqlStorageValue[]) => string,
): Promise<void> {
  const byMonth = new Map<string, SqlStorageValue[][]>();
  for (const row of rows) {
    const month = monthOf(row);
    byMonth.set(month, [...(byMonth.get(month) ?? []), row]);
  }
  const perStatement = Math.max(1, Math.floor(100 / paramsPerRow));
  for (const [month, monthRows] of byMonth) {
    await runInDurableObject(receiptMonth(env, companyId, month), (_instance, state) => {
      state.storage.transactionSync(() => {
        for (let i = 0; i < monthRows.length; i += perStatement) {
          const chunk = monthRows.slice(i, i + perStatement);
          state.storage.sql.exec(`${sqlHead} VALUES ${chunk.map(() => rowSql).join(", ")}`, ...chunk.flat());
        }
      });
    });
  }
  await registerInIssuer(companyId, { months: [...byMonth.keys()] });
}

/** Registers fixtures in the issuer object as the ledger does: receipt numbers, purchases and months (idempotent). */
export async function registerInIssuer(
  companyId: string,
  entries: {
    receipts?: { tipoeCF: string; number: number; month: string }[];
    purchases?: { rncEmisor: string; encf: string; month: string }[];
    months?: string[];
  },
): Promise<void> {
  await issuerLedger(env, companyId)
    .maintenance()
    .importRows({
      sequences: [],
      usageCounters: [],
      idempotencyKeys: [],
      deviceLeases: [],
      receipts: entries.receipts ?? [],
      purchases: entries.purchases ?? [],
      months: entries.months ?? [],
    });
}

/** Every table of the issuer's objects (the issuer object and each month object), all rows in a stable order. */
export async function ledgerSnapshot(companyId: string): Promise<Record<string, Row[]>> {
  const tablesOf = async (stub: DurableObjectStub) =>
    runInDurableObject(stub, (_instance, state) => {
      const tables = state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE '__drizzle%' ORDER BY name",
        )
        .toArray()
        .map((t) => t.name);
      return Object.fromEntries(
        tables.map((name) => [name, state.storage.sql.exec<Row>(`SELECT * FROM "${name}" ORDER BY rowid`).toArray()]),
      );
    });
  const snapshot: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(await tablesOf(issuerLedger(env, companyId))))
    snapshot[`issuer/${table}`] = rows;
  for (const month of await ledgerMonths(companyId)) {
    for (const [table, rows] of Object.entries(await tablesOf(receiptMonth(env, companyId, month))))
      snapshot[`${month}/${table}`] = rows;
  }
  return snapshot;
}

/**
 * Runs the purchase check the month alarm runs (consultaestado against the sandbox), in every
 * month object of the company, with the clock at `now`: a test moves time without sleeping.
 */
export async function checkPurchasesAtDgii(companyId: string, now: Date): Promise<number> {
  let checked = 0;
  for (const month of await ledgerMonths(companyId)) {
    checked += await runInDurableObject(receiptMonth(env, companyId, month), (instance) =>
      confirmDuePurchases((instance as unknown as { host: MonthAlarmHost }).host, now),
    );
  }
  return checked;
}

/** Marks every purchase of the company as DGII confirmed it (for tests about something else). */
export async function markPurchasesConfirmed(companyId: string): Promise<void> {
  await everyMonthSql(companyId, "UPDATE purchases SET dgii_status = 'confirmed', dgii_next_check_at = NULL");
}
