// The receipt history: each receipt's state, and DGII's reason for a rejection.
import { h, money } from "@ecf/ui-kit";
import type { PosDatabase, Sale } from "../db.ts";
import { dateTime } from "../format.ts";

const ESTADO_CLASS: Record<string, string> = {
  Aceptado: "ok",
  "Aceptado Condicional": "ok",
  "En Proceso": "wait",
  Pendiente: "wait",
  Contingencia: "warn",
  Rechazado: "bad",
  Anulado: "bad",
};

export async function historyScreen(db: PosDatabase, open: (sale: Sale) => void): Promise<HTMLElement> {
  const sales = await db.sales.orderBy("createdAt").reverse().limit(200).toArray();
  if (!sales.length) return h("p", {}, "Aún no hay comprobantes.");
  return h(
    "table",
    { class: "history", id: "history" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "e-NCF"),
        h("th", {}, "Fecha"),
        h("th", {}, "Total"),
        h("th", {}, "Estado"),
        h("th", {}, ""),
      ),
    ),
    h(
      "tbody",
      {},
      ...sales.map((s) =>
        h(
          "tr",
          { "data-encf": s.encf ?? "", "data-estado": s.estado ?? "" },
          h("td", {}, s.encf ?? "—"),
          h("td", {}, dateTime(s.createdAt)),
          h("td", { class: "num" }, money(s.montoTotal ?? "0")),
          h(
            "td",
            {},
            h("span", { class: `estado ${ESTADO_CLASS[s.estado ?? "Pendiente"] ?? ""}` }, s.estado ?? "Pendiente"),
            s.estado === "Rechazado" && s.mensajes?.length
              ? h("div", { class: "reason" }, s.mensajes.map((m) => `${m.codigo}: ${m.valor}`).join(" · "))
              : null,
          ),
          h("td", {}, h("button", { type: "button", onclick: () => open(s) }, "Ver")),
        ),
      ),
    ),
  );
}
