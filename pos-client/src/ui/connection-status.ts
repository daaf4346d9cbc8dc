// What the status bar says about the connection and the receipts waiting, honestly: the browser's
// "online" only means a network; the sync's own outcome says whether the server answers.
import type { PosDatabase } from "../db.ts";
import type { TypeStock } from "../offline-capacity.ts";

export interface ConnectionView {
  text: string;
  state: "on" | "off";
}

/** No network; a network but no answer from the server; or on line. */
export function connectionView(networkUp: boolean, serverUnreachable: boolean): ConnectionView {
  if (!networkUp) return { text: "Sin conexión", state: "off" };
  if (serverUnreachable) return { text: "Sin conexión con el servidor", state: "off" };
  return { text: "En línea", state: "on" };
}

/** "hace 3 min", "hace 2 h 5 min", "hace menos de un minuto". */
export function ageText(fromIso: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - Date.parse(fromIso)) / 60_000);
  if (!(minutes >= 1)) return "hace menos de un minuto";
  if (minutes < 60) return `hace ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `hace ${hours} h ${minutes % 60} min` : `hace ${hours} h`;
}

/** The receipts still to upload and when the oldest of them was issued. */
export async function backlog(db: PosDatabase): Promise<{ waiting: number; oldest?: string }> {
  const entries = await db.outbox.where("state").anyOf("pending", "sending").toArray();
  if (!entries.length) return { waiting: 0 };
  const first = entries.reduce((a, b) => ((a.seq ?? 0) <= (b.seq ?? 0) ? a : b));
  const sale = await db.sales.get(first.saleId);
  return { waiting: entries.length, ...(sale?.createdAt ? { oldest: sale.createdAt } : {}) };
}

/** "Pendientes: 3 (el más antiguo, hace 12 min)" or "Todo sincronizado". */
export function backlogText(b: { waiting: number; oldest?: string }, now: Date): string {
  if (!b.waiting) return "Todo sincronizado";
  return b.oldest ? `Pendientes: ${b.waiting} (el más antiguo, ${ageText(b.oldest, now)})` : `Pendientes: ${b.waiting}`;
}

/** "e-NCF: E32 180 · E31 95 · E34 200", and what to do when a type runs low. */
export function stockText(stocks: readonly TypeStock[]): { text: string; low: boolean } {
  const counts = `e-NCF: ${stocks.map((s) => `E${s.tipoeCF} ${s.remaining.toLocaleString("es-DO")}`).join(" · ")}`;
  const low = stocks.filter((s) => s.low);
  if (!low.length) return { text: counts, low: false };
  const which = low.map((s) => `E${s.tipoeCF} (${s.remaining})`).join(", ");
  return { text: `${counts}. Quedan pocos números ${which}: conéctese para recibir más.`, low: true };
}
