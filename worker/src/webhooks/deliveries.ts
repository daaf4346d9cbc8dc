// An endpoint's deliveries live in the month objects of the issuers it serves (beside the receipts
// they are about); listing and retrying fan out over the recent months in parallel.
import { eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { partnerCompanies } from "../db/tables.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import type { Owner } from "./endpoints.ts";

/** How far back the deliveries list looks: this month and the two before (webhooks retry for 3 days). */
const MONTHS_BACK = 3;

async function issuersOf(env: Env, owner: Owner): Promise<string[]> {
  if (owner.ownerType === "company") return [owner.ownerId];
  const rows = await database(env.DB)
    .select({ id: partnerCompanies.companyId })
    .from(partnerCompanies)
    .where(eq(partnerCompanies.partnerId, owner.ownerId));
  return rows.map((r) => r.id);
}

async function recentMonths(env: Env, companyId: string): Promise<string[]> {
  return (await issuerLedger(env, companyId).index().months()).slice(-MONTHS_BACK);
}

export async function listDeliveries(env: Env, owner: Owner, endpointId: string, limit = 100) {
  const issuers = await issuersOf(env, owner);
  const perMonth = await Promise.all(
    issuers.map(async (companyId) =>
      Promise.all(
        (await recentMonths(env, companyId)).map((month) =>
          receiptMonth(env, companyId, month).followUp().webhookDeliveries(endpointId, limit),
        ),
      ),
    ),
  );
  return perMonth
    .flat(2)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
    .slice(0, limit)
    .map((d) => ({ ...d, lastResult: d.lastResult ? (JSON.parse(d.lastResult) as unknown) : null }));
}

/** Queues a delivery again; false when no recent month holds it. */
export async function retryDelivery(env: Env, owner: Owner, endpointId: string, deliveryId: string): Promise<boolean> {
  for (const companyId of await issuersOf(env, owner)) {
    const results = await Promise.all(
      (await recentMonths(env, companyId)).map((month) =>
        receiptMonth(env, companyId, month).followUp().retryDelivery(endpointId, deliveryId),
      ),
    );
    if (results.some(Boolean)) return true;
  }
  return false;
}
