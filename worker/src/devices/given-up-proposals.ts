// A till's given-up numbers wait as proposals: voiding numbers at DGII is an owner's or an
// accountant's act (as POST /fe/anulacion is), even when a till proposes it. The till's list is
// judged at once (a number outside its leases or holding a receipt is refused, one voided before
// answers so) and the rest are kept as proposals; no ANECF leaves until someone confirms them
// (console, or POST /devices/given-up-proposals/confirm), when they are judged again and voided.
import { and, asc, eq, inArray } from "drizzle-orm";
import { randomToken } from "../crypto/credentials.ts";
import { database } from "../db/client.ts";
import { givenUpProposals } from "../db/devices-tables.ts";
import type { Company } from "../db/tables.ts";
import { judge, voidGivenUpNumbers, type GivenUpNumber, type GivenUpResult } from "./given-up.ts";

export type GivenUpProposal = typeof givenUpProposals.$inferSelect;

/** Answers the till's list, in the order sent: settled numbers as they stand, the rest proposed. */
export async function proposeGivenUpNumbers(
  env: Env,
  company: Company,
  deviceId: string,
  numbers: GivenUpNumber[],
  now: Date,
): Promise<GivenUpResult[]> {
  const judged = new Map<string, GivenUpResult>();
  for (const n of new Map(numbers.map((x) => [x.encf, x])).values()) {
    const settled = await judge(env, company, deviceId, n);
    if (settled) {
      judged.set(n.encf, settled);
      continue;
    }
    // A number proposed before stays one proposal (a retried sync).
    await database(env.DB)
      .insert(givenUpProposals)
      .values({
        id: `gup_${randomToken(12)}`,
        companyId: company.id,
        deviceId,
        tipoeCF: n.tipoeCF,
        encf: n.encf,
        proposedAt: now.toISOString(),
      })
      .onConflictDoNothing()
      .run();
    judged.set(n.encf, { ...n, anulado: false, replayed: false, proposed: true });
  }
  return numbers.map((n) => judged.get(n.encf)!);
}

/** The proposals waiting for a decision, oldest first. */
export function pendingProposals(env: Env, companyId: string): Promise<GivenUpProposal[]> {
  return database(env.DB)
    .select()
    .from(givenUpProposals)
    .where(and(eq(givenUpProposals.companyId, companyId), eq(givenUpProposals.status, "proposed")))
    .orderBy(asc(givenUpProposals.proposedAt), asc(givenUpProposals.encf));
}

/**
 * Confirms proposals: each device's numbers go to DGII in one ANECF (judged again first: a receipt
 * may have come meanwhile) and each proposal records its outcome. A proposal voided or refused
 * before answers as it stands; DGII unreachable leaves the rest proposed (503), to confirm again.
 */
export async function confirmProposals(
  env: Env,
  company: Company,
  ids: string[],
  actor: string,
  now: Date,
): Promise<{ results: (GivenUpResult & { id: string })[]; auditEvent?: { code: string; detail: string } }> {
  const db = database(env.DB);
  const found = await db
    .select()
    .from(givenUpProposals)
    .where(and(eq(givenUpProposals.companyId, company.id), inArray(givenUpProposals.id, ids)));
  // Answered in the order asked.
  const rows = found.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
  const outcomes = new Map<string, GivenUpResult>();
  let auditEvent: { code: string; detail: string } | undefined;
  for (const deviceId of new Set(rows.filter((r) => r.status === "proposed").map((r) => r.deviceId))) {
    const mine = rows.filter((r) => r.deviceId === deviceId && r.status === "proposed");
    const numbers = mine.map((r) => ({ tipoeCF: r.tipoeCF as GivenUpNumber["tipoeCF"], encf: r.encf }));
    const voided = await voidGivenUpNumbers(env, company, deviceId, numbers, now);
    auditEvent = voided.auditEvent ?? auditEvent;
    for (const [i, row] of mine.entries()) {
      const result = voided.results[i]!;
      outcomes.set(row.id, result);
      if (!result.anulado && !result.error) continue; // not decided this time: stays proposed
      await db
        .update(givenUpProposals)
        .set({
          status: result.anulado ? "voided" : "refused",
          decidedBy: actor,
          decidedAt: now.toISOString(),
          outcome: JSON.stringify(result),
        })
        .where(eq(givenUpProposals.id, row.id));
    }
  }
  const results = rows.map((r) => {
    const decided = outcomes.get(r.id) ?? (r.outcome ? (JSON.parse(r.outcome) as GivenUpResult) : null);
    return {
      id: r.id,
      ...(decided ?? { tipoeCF: r.tipoeCF as GivenUpNumber["tipoeCF"], encf: r.encf, anulado: false, replayed: false }),
    };
  });
  return { results, ...(auditEvent ? { auditEvent } : {}) };
}
