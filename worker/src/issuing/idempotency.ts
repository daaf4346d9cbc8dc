import { and, eq } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { database } from "../db/client.ts";
import { idempotencyKeys } from "../db/schema.ts";
import { ApiProblem } from "../http/problem.ts";

export type Claim = { kind: "claimed" } | { kind: "replay"; status: ContentfulStatusCode; body: unknown };

/**
 * Claims an `Idempotency-Key` for this issuer with one INSERT … ON CONFLICT DO NOTHING. The first
 * request with a key does the work; later ones get its stored answer. The same key with a
 * different body, or while the first is still running, is a 409.
 */
export async function claimIdempotencyKey(d1: D1Database, companyId: string, key: string, requestHash: string): Promise<Claim> {
  const db = database(d1);
  const inserted = await db.insert(idempotencyKeys).values({ companyId, key, requestHash }).onConflictDoNothing().returning();
  if (inserted.length) return { kind: "claimed" };
  const row = await db.query.idempotencyKeys.findFirst({ where: and(eq(idempotencyKeys.companyId, companyId), eq(idempotencyKeys.key, key)) });
  if (!row || row.requestHash !== requestHash) {
    throw new ApiProblem("conflict", {
      detail: "This Idempotency-Key was already used with a different request body.",
      errors: [{ path: "/headers/Idempotency-Key", code: "idempotency_key_reused", message: "Different request for the same key." }],
    });
  }
  if (row.response === null || row.status === null) {
    throw new ApiProblem("conflict", {
      detail: "A request with this Idempotency-Key is still being processed; retry shortly.",
      errors: [{ path: "/headers/Idempotency-Key", code: "idempotency_key_in_progress", message: "In progress." }],
    });
  }
  return { kind: "replay", status: row.status as ContentfulStatusCode, body: JSON.parse(row.response) };
}

export async function storeIdempotentAnswer(d1: D1Database, companyId: string, key: string, status: number, body: unknown): Promise<void> {
  await database(d1)
    .update(idempotencyKeys)
    .set({ status, response: JSON.stringify(body) })
    .where(and(eq(idempotencyKeys.companyId, companyId), eq(idempotencyKeys.key, key)));
}

/** A request that failed before issuing anything gives its key back, so a corrected retry works. */
export async function releaseIdempotencyKey(d1: D1Database, companyId: string, key: string): Promise<void> {
  await database(d1).delete(idempotencyKeys).where(and(eq(idempotencyKeys.companyId, companyId), eq(idempotencyKeys.key, key)));
}
