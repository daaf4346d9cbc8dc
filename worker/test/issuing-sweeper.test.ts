import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { database } from "../src/db/client.ts";
import { sweepOutbox } from "../src/issuing/outbox.ts";
import { dueReceipts } from "../src/issuing/transmit.ts";
import { clearFaults, issue, issueRequest, issuer, received, setFault } from "./support/issuing.ts";

afterEach(clearFaults);

const receiptRow = async (companyId: string, encf: string) => (await database(env.DB).query.receipts.findFirst({ where: (r, { and, eq }) => and(eq(r.companyId, companyId), eq(r.encf, encf)) }))!;
const sentEcf = async (rnc: string, encf: string) => (await received(rnc, encf)).filter((r) => r.kind === "ecf").length;
const at = (iso: string, plusMs: number) => new Date(Date.parse(iso) + plusMs);
const SECOND = 1000;

async function contingency(token: string): Promise<string> {
  const { status, body } = await issue(token, issueRequest("31"));
  expect(status).toBe(503);
  return body.encf;
}

const HOUR = 3600 * SECOND;
/**
 * The queue consumer runs in these tests too (every pending receipt is queued by its request).
 * A claim held for the next hour in real time keeps it away, while the sweeper, run on a clock
 * hours ahead, sees that claim as expired: every move in these tests is the sweeper's. Applied
 * again after each sweep, which releases its own claim.
 */
async function keepQueueAway(companyId: string, encfs: string[]) {
  for (const encf of encfs) {
    await env.DB.prepare("UPDATE receipts SET claimed_until = ?3 WHERE company_id = ?1 AND encf = ?2").bind(companyId, encf, new Date(Date.now() + HOUR).toISOString()).run();
  }
}

// Sweeps run on a clock two hours ahead (see keepQueueAway).
describe("the cron sweeper", () => {
  it("backs off a receipt that stays pending instead of retrying it on every tick", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const encf = await contingency(token);
    await keepQueueAway(company.id, [encf]);
    // Created (for the back-off) two hours ahead, on the sweeper's clock.
    const created = new Date(Date.now() + 2 * HOUR).toISOString();
    await env.DB.prepare("UPDATE receipts SET created_at = ?3 WHERE company_id = ?1 AND encf = ?2").bind(company.id, encf, created).run();
    const sweep = async (now: Date) => {
      await sweepOutbox(env, now);
      await keepQueueAway(company.id, [encf]);
      return receiptRow(company.id, encf);
    };

    const t0 = at(created, 5 * SECOND);
    const first = await sweep(t0);
    expect(first.status).toBe("contingency");
    expect(first.nextAttemptAt).toBe(new Date(t0.getTime() + 30 * SECOND).toISOString());

    // The next tick comes before that: the receipt is not touched.
    expect(await sweep(at(created, 20 * SECOND))).toMatchObject({ updatedAt: first.updatedAt, nextAttemptAt: first.nextAttemptAt });

    // Due again: tried, and pushed back by as long as it has existed.
    const t1 = at(created, 120 * SECOND);
    const second = await sweep(t1);
    expect(second.updatedAt).not.toBe(first.updatedAt);
    expect(second.nextAttemptAt).toBe(new Date(t1.getTime() + 120 * SECOND).toISOString());

    // Hours later: at most every 10 minutes.
    const t2 = at(created, 3 * HOUR);
    expect((await sweep(t2)).nextAttemptAt).toBe(new Date(t2.getTime() + 600 * SECOND).toISOString());

    // DGII back: sent once, and finished.
    await clearFaults();
    for (let i = 1; i < 8 && (await receiptRow(company.id, encf)).status !== "accepted"; i++) {
      await sweep(at(created, 3 * HOUR + i * 700 * SECOND));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await receiptRow(company.id, encf)).status).toBe("accepted");
    expect(await sentEcf(company.rnc, encf)).toBe(1);
  });

  it("takes receipts in the order they became due, so ones that keep failing do not starve a newer one", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const stuck: string[] = [];
    for (let i = 0; i < 2; i++) {
      stuck.push(await contingency(token));
      await keepQueueAway(company.id, stuck);
    }
    const t0 = new Date(Date.now() + 2 * HOUR);
    // Both tried (DGII still down) and pushed back.
    expect((await sweepOutbox(env, t0)).looked).toBe(2);
    await keepQueueAway(company.id, stuck);
    const fresh = await contingency(token);
    const all = [...stuck, fresh];
    await keepQueueAway(company.id, all);
    const ids = Object.fromEntries(await Promise.all(all.map(async (encf) => [(await receiptRow(company.id, encf)).id, encf] as const)));

    // All three are due later on; the newer one, never tried in the background, comes first.
    const t1 = new Date(t0.getTime() + HOUR);
    expect((await dueReceipts(env.DB, t1)).map((r) => ids[r.id])).toEqual([fresh, ...stuck]);

    // A tick with room for one receipt sends the newer one.
    await clearFaults();
    await sweepOutbox(env, t1, { limit: 1 });
    await keepQueueAway(company.id, all);
    expect(await sentEcf(company.rnc, fresh)).toBe(1);
    for (const encf of stuck) expect(await sentEcf(company.rnc, encf)).toBe(0);

    await sweepOutbox(env, t1, { limit: 2 });
    for (const encf of all) expect(await sentEcf(company.rnc, encf)).toBe(1);
  });
});
