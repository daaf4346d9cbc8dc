// `npm run admin -- ledger:migrate`: moves one issuer's ledger from the D1 tables of API 1.7
// (sequences, usage_counters, idempotency_keys, device_leases, receipts, purchases, audit_log)
// into its Durable Objects. Idempotent: every row is inserted only if absent, so running it again,
// or after a partial run, changes nothing. The D1 tables are left as they were (a later release
// drops them); receipts still pending there are due at once in their month object.
import { getTableColumns, type Table } from "drizzle-orm";
import { issuerLedger, receiptMonth } from "./client.ts";
import { deviceLeases, idempotencyKeys, sequences, usageCounters } from "./issuer/issuer-tables.ts";
import { auditLog, purchases, receipts } from "./month/month-tables.ts";
import type { AuditEntry, NewPurchase, NewReceipt } from "./rows.ts";

/** Rows per RPC: well under the RPC message limit even for long audit details. */
const CHUNK = 400;

export interface LedgerImport {
  companyId: string;
  sequences: number;
  leases: number;
  idempotencyKeys: number;
  receipts: number;
  purchases: number;
  auditEntries: number;
  months: string[];
}

/** Reads a legacy D1 table's rows of one issuer, keyed as the ledger table's fields (snake_case → camelCase). */
async function legacyRows<T>(d1: D1Database, tableName: string, table: Table, companyId: string): Promise<T[]> {
  const exists = await d1
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1`)
    .bind(tableName)
    .first();
  if (!exists) return [];
  const { results } = await d1
    .prepare(`SELECT * FROM ${tableName} WHERE company_id = ?1`)
    .bind(companyId)
    .all<Record<string, unknown>>();
  const fields = Object.entries(getTableColumns(table)).map(([field, column]) => [field, column.name] as const);
  return results.map(
    (row) =>
      Object.fromEntries(fields.filter(([, name]) => name in row).map(([field, name]) => [field, row[name]])) as T,
  );
}

const chunks = <T>(rows: T[]) =>
  Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK));

/** The issuer index's entries of the moved receipts and purchases: each in its FechaEmision's month. */
function indexEntries(receiptRows: NewReceipt[], purchaseRows: NewPurchase[]) {
  return {
    indexRows: receiptRows.map((r) => ({
      tipoeCF: r.tipoeCF,
      number: Number(r.encf.slice(3)),
      month: r.issueDate.slice(0, 7),
    })),
    purchaseIndex: purchaseRows.map((p) => ({ rncEmisor: p.rncEmisor, encf: p.encf, month: p.issueDate.slice(0, 7) })),
  };
}

export async function importIssuerFromD1(env: Env, companyId: string): Promise<LedgerImport> {
  const legacy = await readLegacyLedger(env, companyId);
  const months = byMonth(legacy);
  // The months first, then the index: a receipt the index names is always in its month object.
  await importMonths(env, companyId, months);
  await importIssuerRows(env, companyId, legacy, [...months.keys()]);
  return {
    companyId,
    sequences: legacy.sequences.length,
    leases: legacy.leases.length,
    idempotencyKeys: legacy.idempotencyKeys.length,
    receipts: legacy.receipts.length,
    purchases: legacy.purchases.length,
    auditEntries: legacy.audit.length,
    months: [...months.keys()].sort(),
  };
}

/** One issuer's rows in the D1 tables of API 1.7. */
interface LegacyLedger {
  sequences: (typeof sequences.$inferSelect)[];
  usageCounters: (typeof usageCounters.$inferSelect)[];
  idempotencyKeys: (typeof idempotencyKeys.$inferSelect)[];
  leases: (typeof deviceLeases.$inferInsert)[];
  receipts: NewReceipt[];
  purchases: NewPurchase[];
  audit: AuditEntry[];
}

async function readLegacyLedger(env: Env, companyId: string): Promise<LegacyLedger> {
  const read = <T>(name: string, table: Table) => legacyRows<T>(env.DB, name, table, companyId);
  const [seqs, usage, keys, leases, receiptRows, purchaseRows, auditRows] = await Promise.all([
    read<typeof sequences.$inferSelect>("sequences", sequences),
    read<typeof usageCounters.$inferSelect>("usage_counters", usageCounters),
    read<typeof idempotencyKeys.$inferSelect>("idempotency_keys", idempotencyKeys),
    read<typeof deviceLeases.$inferInsert>("device_leases", deviceLeases),
    read<NewReceipt>("receipts", receipts),
    read<NewPurchase>("purchases", purchases),
    read<AuditEntry>("audit_log", auditLog),
  ]);
  return {
    sequences: seqs,
    usageCounters: usage,
    idempotencyKeys: keys,
    leases,
    receipts: receiptRows,
    purchases: purchaseRows,
    audit: auditRows,
  };
}

interface MonthRows {
  receipts: NewReceipt[];
  purchases: NewPurchase[];
  audit: AuditEntry[];
}

/**
 * Receipts and purchases live in the month of their FechaEmision, audit entries in the (UTC) month
 * they were written.
 */
function byMonth(legacy: LegacyLedger): Map<string, MonthRows> {
  const months = new Map<string, MonthRows>();
  const monthOf = (month: string) =>
    months.get(month) ?? months.set(month, { receipts: [], purchases: [], audit: [] }).get(month)!;
  for (const r of legacy.receipts) monthOf(r.issueDate.slice(0, 7)).receipts.push(r);
  for (const p of legacy.purchases) monthOf(p.issueDate.slice(0, 7)).purchases.push(p);
  for (const { id: _id, ...a } of legacy.audit)
    monthOf((a.createdAt ?? new Date().toISOString()).slice(0, 7)).audit.push(a);
  return months;
}

async function importMonths(env: Env, companyId: string, months: Map<string, MonthRows>): Promise<void> {
  for (const [month, rows] of months) {
    const stub = receiptMonth(env, companyId, month).maintenance();
    for (const part of chunks(rows.receipts)) await stub.importRows({ receipts: part, purchases: [], audit: [] });
    for (const part of chunks(rows.purchases)) await stub.importRows({ receipts: [], purchases: part, audit: [] });
    for (const part of chunks(rows.audit)) await stub.importRows({ receipts: [], purchases: [], audit: part });
  }
}

/** An issuer import that carries nothing: each call fills in one kind of row. */
const NO_ISSUER_ROWS = {
  sequences: [],
  usageCounters: [],
  idempotencyKeys: [],
  deviceLeases: [],
  receipts: [],
  purchases: [],
  months: [],
};

/** The issuer's own rows and the months it has, then its index of receipts and purchases by month. */
async function importIssuerRows(env: Env, companyId: string, legacy: LegacyLedger, months: string[]): Promise<void> {
  const ledger = issuerLedger(env, companyId).maintenance();
  const { indexRows: receiptIndex, purchaseIndex } = indexEntries(legacy.receipts, legacy.purchases);
  await ledger.importRows({
    ...NO_ISSUER_ROWS,
    sequences: legacy.sequences,
    usageCounters: legacy.usageCounters,
    idempotencyKeys: legacy.idempotencyKeys,
    deviceLeases: legacy.leases,
    months,
  });
  for (const part of chunks(receiptIndex)) await ledger.importRows({ ...NO_ISSUER_ROWS, receipts: part });
  for (const part of chunks(purchaseIndex)) await ledger.importRows({ ...NO_ISSUER_ROWS, purchases: part });
}
