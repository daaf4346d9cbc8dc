// Receipts the server accepted for processing ("En Proceso") get DGII's final word later: each
// sync round asks for the current state of a few of them and records it.
import type { PosDatabase } from "../db.ts";
import type { ServerAnswer } from "./outbox.ts";

export const REFRESH_BATCH = 20;

export async function refreshInProcess(db: PosDatabase, currentState: (encf: string) => Promise<ServerAnswer | null>): Promise<number> {
  const waiting = await db.sales.filter((s) => s.estado === "En Proceso" && !!s.encf).limit(REFRESH_BATCH).toArray();
  let changed = 0;
  for (const sale of waiting) {
    const answer = await currentState(sale.encf!);
    if (!answer || answer.estado === "En Proceso") continue;
    await db.transaction("rw", db.sales, db.outbox, async () => {
      await db.sales.update(sale.id, { estado: answer.estado, mensajes: answer.mensajes });
      if (answer.estado === "Rechazado") await db.outbox.where("encf").equals(sale.encf!).modify({ state: "rejected", answer });
    });
    changed++;
  }
  return changed;
}
