// Rows moved from the D1 ledger into an issuer object (`ledger:migrate`); running it again
// changes nothing.
import { and, eq } from "drizzle-orm";
import { deviceLeases, idempotencyKeys, sequences, usageCounters } from "./issuer-tables.ts";
import type { IssuerDb } from "./encf-allocation.ts";
import { noteMonth, registerNumber, registerPurchase } from "./receipt-index.ts";
import type { Sequence } from "./issuer-row-types.ts";

export interface IssuerRows {
  sequences: Sequence[];
  usageCounters: { month: string; invoices: number }[];
  idempotencyKeys: (typeof idempotencyKeys.$inferInsert)[];
  deviceLeases: (typeof deviceLeases.$inferInsert)[];
  receipts: { tipoeCF: string; number: number; month: string }[];
  purchases: { rncEmisor: string; encf: string; month: string }[];
  months: string[];
}

export function importIssuerRows(db: IssuerDb, rows: IssuerRows): void {
  for (const row of rows.sequences) db.insert(sequences).values(row).onConflictDoNothing().run();
  for (const row of rows.usageCounters) db.insert(usageCounters).values(row).onConflictDoNothing().run();
  for (const row of rows.idempotencyKeys) db.insert(idempotencyKeys).values(row).onConflictDoNothing().run();
  for (const { id: _legacyId, ...row } of rows.deviceLeases) {
    const sameLease = and(
      eq(deviceLeases.deviceId, row.deviceId),
      eq(deviceLeases.tipoeCF, row.tipoeCF),
      eq(deviceLeases.rangeFrom, row.rangeFrom),
    );
    if (!db.select().from(deviceLeases).where(sameLease).get()) db.insert(deviceLeases).values(row).run();
  }
  for (const r of rows.receipts) registerNumber(db, r.tipoeCF, r.number, r.month);
  for (const p of rows.purchases) registerPurchase(db, p.rncEmisor, p.encf, p.month);
  for (const month of rows.months) noteMonth(db, month);
}
