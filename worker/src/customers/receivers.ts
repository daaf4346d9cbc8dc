// Whether DGII's directory lists a customer as an electronic receiver: asked when a customer is
// saved, and in the background for the buyers taken in from receipts (never asked yet), so the
// list does not say "not asked" forever. Answers are kept a while per isolate (DirectoryCache),
// so a list read again and again does not ask DGII again and again.
import { and, eq, isNull } from "drizzle-orm";
import { database } from "../db/client.ts";
import { companyById } from "../db/companies.ts";
import { DirectoryCache } from "../dgii/directory-cache.ts";
import { lookUpTaxpayer } from "../dgii/directory.ts";
import { dgiiClientFor, dgiiDirectoryTtls, signerFor } from "../dgii/for-company.ts";
import type { Company } from "../db/tables.ts";
import { type CustomerRow, customers } from "./table.ts";

const directory = new DirectoryCache();
/** How many customers one list read asks about (the rest on the next read). */
const BATCH = 20;

/** Whether DGII's directory lists `rnc` as an electronic receiver; null when DGII could not say. */
export async function listedInDirectory(env: Env, companyId: string, rnc: string): Promise<boolean | null> {
  const company = await companyById(env, companyId);
  return company ? receives(env, company, rnc) : null;
}

/** Asks the directory about the listed customers never asked yet and records each answer. */
export async function askUnaskedReceivers(env: Env, companyId: string, rows: readonly CustomerRow[]): Promise<void> {
  const unasked = rows.filter((r) => r.electronicReceiver === null).slice(0, BATCH);
  if (!unasked.length) return;
  const company = await companyById(env, companyId);
  if (!company) return;
  for (const row of unasked) {
    const electronicReceiver = await receives(env, company, row.rnc);
    if (electronicReceiver === null) continue;
    // Only where still unasked: an owner's save in between has its own, newer answer.
    await database(env.DB)
      .update(customers)
      .set({ electronicReceiver, checkedAt: new Date().toISOString() })
      .where(and(eq(customers.companyId, companyId), eq(customers.rnc, row.rnc), isNull(customers.electronicReceiver)));
  }
}

async function receives(env: Env, company: Company, rnc: string): Promise<boolean | null> {
  const key = `${company.dgiiEnvironment}|${rnc}`;
  const cached = directory.lookup(key, Date.now());
  if (cached) return cached.entry !== undefined;
  try {
    const entry = await lookUpTaxpayer(dgiiClientFor(env, company, await signerFor(env, company)), rnc);
    directory.remember(key, entry, Date.now(), dgiiDirectoryTtls(env));
    return entry !== undefined;
  } catch {
    return null;
  }
}
