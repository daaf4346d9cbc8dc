// Hoy: the month's and today's sales in RD$ (today-sales.ts), this month's receipts by state, what is still pending or in contingency and since when,
// buyer deliveries that failed, the certificate's expiry and the monthly quota.
import type { components } from "@ecf/client";
import { api, jsonOf } from "../api.ts";
import { h, table } from "../dom.ts";
import { day, estadoClass, when } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";
import { firstRunAndRanges } from "./first-run.ts";
import { salesSection } from "./today-sales.ts";

type Row = components["schemas"]["EncfReportItem"];

/** The first day of this month in Santo Domingo, dd-MM-yyyy (the report's Desde). */
function monthStart(now = new Date()): string {
  const today = day(now.toISOString());
  return `01-${today.slice(3)}`;
}

/** Every state a receipt can be in, as the receipts report names them (its `estado` filter). */
const ESTADOS = ["Aceptado", "Aceptado Condicional", "En Proceso", "Contingencia", "Rechazado", "Anulado"] as const;
/** States still waiting for DGII's last word: their receipts are listed, oldest first. */
const WAITING = new Set<string>(["En Proceso", "Contingencia"]);

/** This month's receipts in one state: how many (the report's total) and, for a waiting state, the first ones. */
const monthIn = (estado: string) =>
  api
    .GET("/reports/encf", {
      params: { query: { Desde: monthStart(), estado, pageSize: WAITING.has(estado) ? "100" : "1" } },
    })
    .then((r) => ({ estado, report: jsonOf(r.data) }));

/** Every accepted receipt of the month, page after page: today's figures and the chart add them all. */
async function acceptedThisMonth(): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const query = { Desde: monthStart(), estado: "Aceptado", pageSize: "1000", ...(cursor ? { cursor } : {}) };
    const page = jsonOf((await api.GET("/reports/encf", { params: { query } })).data);
    rows.push(...(page?.items ?? []));
    cursor = page?.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

export const todayPage: Page = async (ctx) => {
  const books = may(ctx.session.role, "monthly");
  const accepted = acceptedThisMonth();
  // Everything at once, so the page shows whole (nothing moves in after it).
  const [me, states, rows, sales, ranges, purchases] = await Promise.all([
    // The company's profile is the books' (owner, accountant); a store manager sees the rest.
    books ? api.GET("/company/me").then((r) => r.data) : undefined,
    // Counted by the report per state, so a month of millions of receipts counts right.
    Promise.all(ESTADOS.map(monthIn)),
    accepted,
    books ? salesSection(accepted) : null,
    books ? firstRunAndRanges() : null,
    books ? purchasesWaiting() : null,
  ]);
  const byState = states.filter((s) => s.report?.total).map((s) => [s.estado, s.report!.total] as const);
  const waiting = states
    .filter((s) => WAITING.has(s.estado))
    .flatMap((s) => s.report?.items ?? [])
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
      ...byState.map(([estado, n]) => tile(estado, String(n), `estado-${estadoClass(estado)}`)),
    ),
    me && ranges
      ? ranges(
          me,
          states.reduce((n, s) => n + (s.report?.total ?? 0), 0),
        )
      : null,
    purchases,
    sales,
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
    // A receipt read per delivery: the page shows first, this part when its reads are in.
    filledLater(failedDeliveries(rows), "No se pudieron leer las entregas."),
  );
};

/** Accepted receipts to electronic buyers (at most 20 of the month's first looked at) whose delivery failed. */
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

/** A placeholder (busy, for screen readers too) that `content` replaces once it is ready. */
function filledLater(content: Promise<HTMLElement>, failure: string): HTMLElement {
  const holder = h("div", { "aria-busy": "true", "aria-live": "polite" }, h("p", {}, "Buscando…"));
  content
    .then(
      (ready) => holder.replaceChildren(ready),
      () => holder.replaceChildren(h("p", { role: "alert" }, failure)),
    )
    .finally(() => holder.removeAttribute("aria-busy"));
  return holder;
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

/** The suppliers' e-CF of this month still waiting for the company's approval or rejection. */
async function purchasesWaiting(): Promise<HTMLElement | null> {
  const { data } = await api.GET("/reports/compras", { params: { query: { Desde: monthStart(), pageSize: "500" } } });
  const waiting = (jsonOf(data)?.items ?? []).filter((p) => !p.aprobacionComercial).length;
  if (!waiting) return null;
  return h(
    "p",
    { class: "warn purchases-waiting" },
    h("a", { href: "#/compras" }, `${waiting} compras esperan su aprobación o rechazo`),
  );
}
