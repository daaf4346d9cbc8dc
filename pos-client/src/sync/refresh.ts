// Receipts the server took but DGII has not settled ("En Proceso": a backlog the server records
// and sends in the background, or DGII still judging; "Contingencia" when the worker could not
// reach DGII) get DGII's final word later: each sync round asks for the current state of the
// unsettled ones, many per request, and records it.
import type { PosDatabase } from "../db.ts";
import type { ServerAnswer } from "../uploads.ts";

/** e-NCF per state query (the server's limit). */
export const STATE_QUERY_MAX = 100;
/** Receipts asked about per round: a synced backlog of a few hundred settles in one round. */
export const REFRESH_LIMIT = 500;
/** Outbox seq of the last receipt asked about. */
const REFRESH_CURSOR = "refresh-cursor";
const UNSETTLED = new Set(["En Proceso", "Contingencia"]);

/** The server's answers for up to STATE_QUERY_MAX receipts; unknown ones are left out. */
export type CurrentStates = (encfs: string[]) => Promise<ServerAnswer[]>;

/** Returns how many receipts changed and how many are still unsettled after this round. */
export async function refreshInProcess(
  db: PosDatabase,
  currentStates: CurrentStates,
  limit = REFRESH_LIMIT,
): Promise<{ changed: number; unsettled: number }> {
  // Only entries the server answered: a local "Contingencia" still waiting in the outbox is the
  // upload's business, not this.
  const uploaded = (await db.outbox.where("state").equals("sent").toArray()).sort((a, b) => a.seq! - b.seq!);
  const sales = await db.sales.bulkGet(uploaded.map((e) => e.saleId));
  const unsettled = uploaded.flatMap((entry, i) =>
    sales[i]?.encf && UNSETTLED.has(sales[i]!.estado ?? "") ? [{ entry, sale: sales[i]! }] : [],
  );
  // At most `limit` per round, rotating: the round starts after the last one asked about, so
  // receipts that stay in process for long never keep the later ones from being asked about.
  const cursor = (await db.setting<number>(REFRESH_CURSOR)) ?? 0;
  const round = [
    ...unsettled.filter((u) => u.entry.seq! > cursor),
    ...unsettled.filter((u) => u.entry.seq! <= cursor),
  ].slice(0, limit);
  if (round.length) await db.setSetting(REFRESH_CURSOR, round.at(-1)!.entry.seq);
  let changed = 0;
  let open = unsettled.length - round.length;
  for (let i = 0; i < round.length; i += STATE_QUERY_MAX) {
    const asked = round.slice(i, i + STATE_QUERY_MAX).map((u) => u.sale);
    const answers = new Map((await currentStates(asked.map((s) => s.encf!))).map((a) => [a.encf, a]));
    const moved = asked.flatMap((sale) => {
      const answer = answers.get(sale.encf!);
      if (UNSETTLED.has(answer?.estado ?? sale.estado ?? "")) open++;
      return answer && answer.estado !== sale.estado ? [{ sale, answer }] : [];
    });
    if (!moved.length) continue;
    await db.transaction("rw", db.sales, db.outbox, async () => {
      await db.sales.bulkUpdate(
        moved.map(({ sale, answer }) => ({
          key: sale.id,
          changes: { estado: answer.estado, mensajes: answer.mensajes },
        })),
      );
      for (const { sale, answer } of moved) {
        if (answer.estado === "Rechazado")
          await db.outbox.where("encf").equals(sale.encf!).modify({ state: "rejected", answer });
      }
    });
    changed += moved.length;
  }
  return { changed, unsettled: open };
}
