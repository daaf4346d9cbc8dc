// A company's customers: the buyers of the receipts it issued (taken in when the list is read, so
// nobody types them twice) and those its owner adds or edits, each with whether DGII's directory
// lists it as an electronic receiver (receivers.ts: asked when a customer is saved, in the
// background for the buyers taken in; a DGII that cannot be reached leaves the answer unknown
// rather than failing the save).
import { and, asc, eq, like, or } from "drizzle-orm";
import { database } from "../db/client.ts";
import { readReport } from "../reports/reports.ts";
import { listedInDirectory } from "./receivers.ts";
import { type CustomerRow, customers } from "./table.ts";

/** How far back the receipts are read for buyers not yet listed. */
const RECEIPT_DAYS = 120;

export interface CustomerView {
  rnc: string;
  name: string;
  email: string | null;
  electronicReceiver: boolean | null;
  updatedAt: string;
}

export const customerView = (row: CustomerRow): CustomerView => ({
  rnc: row.rnc,
  name: row.name,
  email: row.email,
  electronicReceiver: row.electronicReceiver,
  updatedAt: row.updatedAt,
});

/** Adds the buyers of the recent receipts that are not customers yet (names as the receipts give them). */
export async function takeInBuyers(env: Env, companyId: string, now = new Date()): Promise<void> {
  const desde = new Date(now.getTime() - RECEIPT_DAYS * 86_400_000).toISOString().slice(0, 10);
  const page = await readReport(env, "encf", companyId, { desde, pageSize: 500, format: "json", filters: {} });
  const buyers = new Map<string, string>();
  for (const r of page.items) {
    const rnc = typeof r.rncComprador === "string" ? r.rncComprador : "";
    if (/^\d{9}(\d{2})?$/.test(rnc)) buyers.set(rnc, String(r.razonSocialComprador ?? "") || rnc);
  }
  if (!buyers.size) return;
  const rows = [...buyers].map(([rnc, name]) => ({ companyId, rnc, name }));
  // D1 binds at most 100 values per statement: 3 per row.
  for (let i = 0; i < rows.length; i += 30)
    await database(env.DB)
      .insert(customers)
      .values(rows.slice(i, i + 30))
      .onConflictDoNothing();
}

export async function listCustomers(env: Env, companyId: string, q?: string): Promise<CustomerRow[]> {
  await takeInBuyers(env, companyId);
  const text = q ? `%${q}%` : undefined;
  return database(env.DB)
    .select()
    .from(customers)
    .where(
      and(
        eq(customers.companyId, companyId),
        text ? or(like(customers.rnc, text), like(customers.name, text)) : undefined,
      ),
    )
    .orderBy(asc(customers.name))
    .limit(1000);
}

/** Saves a customer (new or edited) and asks DGII's directory whether it receives e-CF. */
export async function saveCustomer(
  env: Env,
  companyId: string,
  rnc: string,
  values: { name: string; email?: string | null },
): Promise<CustomerRow> {
  const electronicReceiver = await listedInDirectory(env, companyId, rnc);
  const now = new Date().toISOString();
  const checked = electronicReceiver === null ? {} : { electronicReceiver, checkedAt: now };
  const set = { name: values.name, email: values.email ?? null, updatedAt: now, ...checked };
  const [row] = await database(env.DB)
    .insert(customers)
    .values({ companyId, rnc, ...set })
    .onConflictDoUpdate({ target: [customers.companyId, customers.rnc], set })
    .returning();
  return row!;
}
