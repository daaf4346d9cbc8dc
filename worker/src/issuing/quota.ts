import { ApiProblem } from "../http/problem.ts";
import { drMonth } from "../time.ts";

/**
 * Reserves one receipt of the issuer's monthly quota in a single conditional upsert, so two
 * concurrent requests can never both take the last unit. Throws 429 `quota_exceeded` when full.
 */
export async function reserveQuota(d1: D1Database, companyId: string, limit: number, now: Date): Promise<void> {
  const month = drMonth(now);
  const row =
    limit > 0
      ? await d1
          .prepare(
            `INSERT INTO usage_counters (company_id, month, invoices) VALUES (?1, ?2, 1)
             ON CONFLICT (company_id, month) DO UPDATE SET invoices = invoices + 1 WHERE invoices < ?3
             RETURNING invoices`,
          )
          .bind(companyId, month, limit)
          .first<{ invoices: number }>()
      : null;
  if (!row) {
    throw new ApiProblem("quota_exceeded", {
      detail: `The monthly limit of ${limit} receipts for ${month} has been reached.`,
      extensions: { limit, month },
    });
  }
}

/** Gives back a reservation when issuing fails before the receipt exists. */
export async function releaseQuota(d1: D1Database, companyId: string, now: Date): Promise<void> {
  await d1
    .prepare(`UPDATE usage_counters SET invoices = invoices - 1 WHERE company_id = ?1 AND month = ?2 AND invoices > 0`)
    .bind(companyId, drMonth(now))
    .run();
}

export async function invoicesThisMonth(d1: D1Database, companyId: string, now: Date): Promise<number> {
  const row = await d1
    .prepare(`SELECT invoices FROM usage_counters WHERE company_id = ?1 AND month = ?2`)
    .bind(companyId, drMonth(now))
    .first<{ invoices: number }>();
  return row?.invoices ?? 0;
}

/**
 * Counts a receipt that was already signed elsewhere (a paired device, offline): it is issued
 * whatever the limit, so it is counted, never refused.
 */
export async function countIssued(d1: D1Database, companyId: string, now: Date): Promise<void> {
  await d1
    .prepare(
      `INSERT INTO usage_counters (company_id, month, invoices) VALUES (?1, ?2, 1)
       ON CONFLICT (company_id, month) DO UPDATE SET invoices = invoices + 1`,
    )
    .bind(companyId, drMonth(now))
    .run();
}
