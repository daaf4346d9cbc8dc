// Hoy: this month's receipts by state, what is still pending or in contingency and since when,
// buyer deliveries that failed, the certificate's expiry and the monthly quota.
import type { components } from "@ecf/client";
import { api, jsonOf } from "../api.ts";
import { h, table } from "../dom.ts";
import { day, estadoClass, when } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";

type Row = components["schemas"]["EncfReportItem"];

/** The first day of this month in Santo Domingo, dd-MM-yyyy (the report's Desde). */
function monthStart(now = new Date()): string {
  const today = day(now.toISOString());
  return `01-${today.slice(3)}`;
}

export const todayPage: Page = async (ctx) => {
  const [me, month] = await Promise.all([
    // The company's profile is the books' (owner, accountant); a store manager sees the rest.
    may(ctx.session.role, "monthly") ? api.GET("/company/me").then((r) => r.data) : undefined,
    api.GET("/reports/encf", { params: { query: { Desde: monthStart(), pageSize: "1000" } } }),
  ]);
  const rows = jsonOf(month.data)?.items ?? [];
  const byState = new Map<string, number>();
  for (const r of rows) byState.set(r.estado, (byState.get(r.estado) ?? 0) + 1);
  const waiting = rows
    .filter((r) => r.estado === "En Proceso" || r.estado === "Contingencia")
    .sort((a, b) => a.fechaHoraFirma.localeCompare(b.fechaHoraFirma));
  return h(
    "section",
    { class: "today" },
    h("h1", {}, "Hoy"),
    h(
      "div",
      { class: "tiles" },
      me
        ? tile("Comprobantes del mes", `${me.invoicesCountCurrentMonth} de ${me.invoiceLimitPerMonth}`, "cuota")
        : null,
      me
        ? tile(
            "Certificado vence",
            me.signatureExpirationDate ? day(me.signatureExpirationDate) : "Sin certificado",
            "cert",
          )
        : null,
      ...[...byState].map(([estado, n]) => tile(estado, String(n), `estado-${estadoClass(estado)}`)),
    ),
    me?.warnings.length
      ? h("ul", { class: "warnings", "aria-label": "Avisos" }, ...me.warnings.map((w) => h("li", {}, w.message)))
      : null,
    h("h2", {}, "Pendientes y en contingencia"),
    waiting.length
      ? table(
          "Comprobantes sin respuesta final de la DGII",
          ["e-NCF", "Estado", "Desde"],
          waiting.map((r) => [receiptLink(r.encf), badge(r.estado), when(r.fechaHoraFirma)]),
        )
      : h("p", {}, "Nada pendiente."),
    h("h2", {}, "Entregas al comprador que fallaron"),
    await failedDeliveries(rows),
  );
};

/** Receipts to electronic buyers (recent ones first, at most 20 looked at) whose delivery failed. */
async function failedDeliveries(rows: Row[]): Promise<HTMLElement> {
  const recent = rows.filter((r) => r.rncComprador && r.tipoeCF !== "32").slice(-20);
  const answers = await Promise.all(
    recent.map((r) => api.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf: r.encf } } })),
  );
  const failed = answers
    .map((a) => a.data)
    .filter((d) => d?.buyerDelivery && ["Fallido", "No Recibido"].includes(d.buyerDelivery.state));
  if (!failed.length) return h("p", {}, "Ninguna.");
  return table(
    "Entregas fallidas",
    ["e-NCF", "Estado de la entrega", "Detalle"],
    failed.map((d) => [receiptLink(d!.encf), badge(d!.buyerDelivery!.state), d!.buyerDelivery!.detail ?? ""]),
  );
}

function tile(label: string, value: string, name: string): HTMLElement {
  return h("div", { class: `tile ${name}` }, h("span", {}, label), h("strong", {}, value));
}

export function badge(estado: string): HTMLElement {
  return h("span", { class: `estado ${estadoClass(estado)}` }, estado);
}

export function receiptLink(encf: string): HTMLElement {
  return h("a", { href: `#/comprobantes/${encf}` }, encf);
}
