// Hoy's money: the month's sales and ITBIS in RD$ as the 607 gives them (its records plus the
// consumer-invoice summary, so Hoy and the monthly file never disagree), by type, today's
// accepted receipts, and a chart of the month's sales by day (inline SVG).
import type { components } from "@ecf/client";
import { add, dec, formatMoney, ZERO, type Decimal } from "@ecf/shared/money";
import { money } from "@ecf/ui-kit";
import { api, jsonOf } from "../api.ts";
import { h, table } from "../dom.ts";
import { currentPeriod, day, TIPO_NOMBRE } from "../format.ts";

type Row = components["schemas"]["EncfReportItem"];
type F607 = components["schemas"]["Formato607"];

const sum = (values: string[]): Decimal => values.reduce((s, v) => add(s, dec(v || "0")), ZERO);

/** The month's sales (607) and today's and each day's (the month's accepted receipts, `rows`). */
export async function salesSection(accepted: Promise<Row[]>): Promise<HTMLElement> {
  const [{ data }, rows] = await Promise.all([
    api.GET("/reports/607", { params: { query: { period: currentPeriod() } } }),
    accepted,
  ]);
  const f607 = jsonOf(data) as F607 | undefined;
  if (!f607) return h("p", {}, "Sin ventas este mes.");
  const rfce = f607.consumptionSummary;
  const ventas = add(dec(f607.totals.montoFacturado ?? "0"), dec(rfce.montoFacturado));
  const itbis = add(dec(f607.totals.itbisFacturado ?? "0"), dec(rfce.itbisFacturado));
  const today = day(new Date().toISOString());
  const ofToday = rows.filter((r) => day(r.fechaEmision) === today);
  const todayTotal = sum(ofToday.map((r) => r.montoTotal));
  const todayItbis = sum(ofToday.map((r) => r.totalITBIS ?? "0"));
  return h(
    "article",
    { class: "card sales", "aria-labelledby": "ventas" },
    h("h2", { id: "ventas" }, "Ventas"),
    h(
      "div",
      { class: "tiles" },
      tile("Ventas de hoy", money(formatMoney(todayTotal)), "ventas-hoy"),
      tile("ITBIS de hoy", money(formatMoney(todayItbis)), "itbis-hoy"),
      tile("Ventas del mes sin ITBIS", money(formatMoney(ventas)), "ventas-mes"),
      tile("ITBIS del mes", money(formatMoney(itbis)), "itbis-mes"),
      tile("Ventas del mes con ITBIS", money(formatMoney(add(ventas, itbis))), "total-mes"),
    ),
    byType(f607),
    chart(rows),
  );
}

function byType(f607: F607): HTMLElement {
  const types = new Map<string, { monto: Decimal; itbis: Decimal; n: number }>();
  for (const line of f607.lines) {
    const t = types.get(line.tipoeCF) ?? { monto: ZERO, itbis: ZERO, n: 0 };
    t.monto = add(t.monto, dec(line.fields.montoFacturado || "0"));
    t.itbis = add(t.itbis, dec(line.fields.itbisFacturado || "0"));
    t.n++;
    types.set(line.tipoeCF, t);
  }
  const rfce = f607.consumptionSummary;
  const rows = [...types].map(([tipo, t]) => [
    `E${tipo} ${TIPO_NOMBRE[tipo] ?? ""}`,
    String(t.n),
    h("span", { class: "num" }, money(formatMoney(t.monto))),
    h("span", { class: "num" }, money(formatMoney(t.itbis))),
  ]);
  if (rfce.count)
    rows.push([
      "E32 Consumo menor de RD$250,000 (resumen)",
      String(rfce.count),
      h("span", { class: "num" }, money(rfce.montoFacturado)),
      h("span", { class: "num" }, money(rfce.itbisFacturado)),
    ]);
  return table("Ventas del mes por tipo (como en el 607)", ["Tipo", "Cantidad", "Monto sin ITBIS", "ITBIS"], rows);
}

/** A bar per day of the month's accepted receipts' totals (with ITBIS). */
function chart(rows: Row[]): HTMLElement {
  const byDay = new Map<number, Decimal>();
  for (const r of rows) {
    const d = Number(day(r.fechaEmision).slice(0, 2));
    byDay.set(d, add(byDay.get(d) ?? ZERO, dec(r.montoTotal)));
  }
  const cents = (v: Decimal) => Number(formatMoney(v));
  const top = Math.max(1, ...[...byDay.values()].map(cents));
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 310 110");
  svg.setAttribute("role", "img");
  const described = [...byDay].map(([d, v]) => `día ${d}: ${money(formatMoney(v))}`).join("; ");
  svg.setAttribute("aria-label", `Ventas del mes por día. ${described || "Sin ventas."}`);
  for (const [d, v] of byDay) {
    const height = Math.round((cents(v) / top) * 100);
    const bar = document.createElementNS(ns, "rect");
    for (const [k, value] of Object.entries({ x: (d - 1) * 10 + 1, y: 105 - height, width: 8, height }))
      bar.setAttribute(k, String(value));
    bar.setAttribute("fill", "#1d6f42");
    svg.append(bar);
  }
  return h("figure", { class: "chart" }, svg, h("figcaption", {}, "Ventas del mes por día (RD$, con ITBIS)"));
}

function tile(label: string, value: string, name: string): HTMLElement {
  return h("div", { class: `tile ${name}` }, h("span", {}, label), h("strong", {}, value));
}
