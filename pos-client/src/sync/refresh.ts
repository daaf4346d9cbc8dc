// Receipts the server took but DGII has not settled ("En Proceso", or "Contingencia" when the
// worker could not reach DGII) get DGII's final word later: each sync round asks for the current
// state of a few of them and records it.
import type { PosDatabase } from "../db.ts";
import type { ServerAnswer } from "./outbox.ts";

export const REFRESH_BATCH = 20;
/** Outbox seq of the last receipt asked about. */
const REFRESH_CURSOR = "refresh-cursor";
const UNSETTLED = new Set(["En Proceso", "Contingencia"]);

export async function refreshInProcess(db: PosDatabase, currentState: (encf: string) => Promise<ServerAnswer | null>): Promise<number> {
  // Only entries the server answered: a local "Contingencia" still waiting in the outbox is the
  // upload's business, not this.
  const uploaded = (await db.outbox.where("state").equals("sent").toArray()).sort((a, b) => a.seq! - b.seq!);
  const sales = await db.sales.bulkGet(uploaded.map((e) => e.saleId));
  const unsettled = uploaded.flatMap((entry, i) => (sales[i]?.encf && UNSETTLED.has(sales[i]!.estado ?? "") ? [{ entry, sale: sales[i]! }] : []));
  // A few per round, rotating: the batch starts after the last one asked about, so receipts that
  // stay in process for long never keep the later ones from being asked about.
  const cursor = (await db.setting<number>(REFRESH_CURSOR)) ?? 0;
  const batch = [...unsettled.filter((u) => u.entry.seq! > cursor), ...unsettled.filter((u) => u.entry.seq! <= cursor)].slice(0, REFRESH_BATCH);
  if (batch.length) await db.setSetting(REFRESH_CURSOR, batch.at(-1)!.entry.seq);
  const waiting = batch.map((u) => u.sale);
  let changed = 0;
  for (const sale of waiting) {
    const answer = await currentState(sale!.encf!);
    if (!answer || answer.estado === sale!.estado) continue;
    await db.transaction("rw", db.sales, db.outbox, async () => {
      await db.sales.update(sale!.id, { estado: answer.estado, mensajes: answer.mensajes });
      if (answer.estado === "Rechazado") await db.outbox.where("encf").equals(sale!.encf!).modify({ state: "rejected", answer });
    });
    changed++;
  }
  return changed;
}
