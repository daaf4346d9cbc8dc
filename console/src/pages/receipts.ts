import { money } from "@ecf/ui-kit";
import { api, jsonOf } from "../api.ts";
import { field, h, table } from "../dom.ts";
import { day, parseDay, TIPO_NOMBRE } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";
import { badge, receiptLink } from "./today.ts";
import { unusedSection } from "./unused.ts";

const ESTADOS = ["Aceptado", "Aceptado Condicional", "En Proceso", "Rechazado", "Contingencia", "Anulado"];

export const receiptsPage: Page = async (ctx) => {
  const q = ctx.route.query;
  const filters = {
    desde: h("input", { name: "desde", placeholder: "dd-MM-aaaa", value: q.get("desde") ?? "", inputmode: "numeric" }),
    hasta: h("input", { name: "hasta", placeholder: "dd-MM-aaaa", value: q.get("hasta") ?? "", inputmode: "numeric" }),
    tipo: select("tipo", q.get("tipo"), ["", "31", "32", "33", "34", "41", "43", "44", "45", "46", "47"], (t) =>
      t ? `E${t} ${TIPO_NOMBRE[t]}` : "Todos",
    ),
    estado: select("estado", q.get("estado"), ["", ...ESTADOS], (e) => e || "Todos"),
    comprador: h("input", { name: "comprador", placeholder: "RNC o cédula", value: q.get("comprador") ?? "" }),
  };
  const error = h("p", { class: "error", role: "alert" });
  const apply = (event: Event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, input] of Object.entries(filters)) if (input.value.trim()) next.set(name, input.value.trim());
    for (const name of ["desde", "hasta"] as const)
      if (filters[name].value.trim() && !parseDay(filters[name].value)) {
        error.textContent = "Escriba las fechas como dd-MM-aaaa (por ejemplo 05-11-2026).";
        return;
      }
    location.hash = `#/comprobantes?${next}`;
  };
  const { data: answered } = await api.GET("/reports/encf", {
    params: {
      query: {
        pageSize: "200",
        ...(q.get("desde") ? { Desde: q.get("desde")! } : {}),
        ...(q.get("hasta") ? { Hasta: q.get("hasta")! } : {}),
        ...(q.get("tipo") ? { tipoeCF: q.get("tipo")! } : {}),
        ...(q.get("estado") ? { estado: q.get("estado")! } : {}),
        ...(q.get("comprador") ? { rncComprador: q.get("comprador")! } : {}),
      },
    },
  });
  const data = jsonOf(answered);
  const items = [...(data?.items ?? [])].reverse(); // newest first
  const unused = may(ctx.session.role, "issue") ? await unusedSection(ctx.reload) : null;
  return h(
    "section",
    {},
    h("h1", {}, "Comprobantes"),
    may(ctx.session.role, "issue")
      ? h(
          "p",
          { class: "actions-row" },
          h("a", { class: "button primary", href: "#/emitir/31" }, "Emitir E31"),
          h("a", { class: "button", href: "#/emitir/32" }, "Emitir E32"),
        )
      : null,
    h(
      "form",
      { class: "filters", onsubmit: apply, "aria-label": "Filtros" },
      field("Desde", filters.desde),
      field("Hasta", filters.hasta),
      field("Tipo", filters.tipo),
      field("Estado", filters.estado),
      field("Comprador", filters.comprador),
      h("button", { type: "submit" }, "Filtrar"),
    ),
    error,
    table(
      `${data?.total ?? 0} comprobantes`,
      ["e-NCF", "Fecha", "Comprador", "Total", "Estado"],
      items.map((r) => [
        receiptLink(r.encf),
        day(r.fechaEmision),
        r.razonSocialComprador ?? r.rncComprador ?? "Consumidor final",
        h("span", { class: "num" }, money(r.montoTotal)),
        badge(r.estado),
      ]),
    ),
    unused,
  );
};

export function select(name: string, value: string | null, options: string[], label: (o: string) => string) {
  return h(
    "select",
    { name },
    ...options.map((o) => h("option", { value: o, selected: o === (value ?? "") }, label(o))),
  );
}
