// Comprobantes: the issued receipts with filters (dates dd-MM-yyyy, type, state, buyer) and a
// receipt's page (lines and totals read from its signed XML, DGII's messages, its timeline, the
// XML and PDF, resending the e-mail, and a credit or debit note on it).
import type { components } from "@ecf/client";
import { money } from "@ecf/ui-kit";
import { api, download, jsonOf, sessionFetch, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { day, parseDay, TIPO_NOMBRE, when } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";
import { BALANCE_RULE, balanceOf, balanceText, notesOf, type ReceiptNotes } from "./balance.ts";
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

/** The document's lines and totals, read from its signed XML (the fiscal document itself). */
function linesOf(xml: string): { lines: string[][]; totals: [string, string][] } {
  const doc = new DOMParser().parseFromString(xml, "application/xml");
  const text = (el: Element, name: string) => el.getElementsByTagName(name)[0]?.textContent ?? "";
  const lines = [...doc.getElementsByTagName("Item")].map((item) => [
    text(item, "NumeroLinea"),
    text(item, "NombreItem"),
    text(item, "CantidadItem"),
    text(item, "PrecioUnitarioItem"),
    text(item, "MontoItem"),
  ]);
  const totales = doc.getElementsByTagName("Totales")[0];
  const totals = totales
    ? [...totales.children].map((c) => [c.localName, c.textContent ?? ""] as [string, string])
    : [];
  return { lines, totals };
}

export const receiptPage: Page = async (ctx) => {
  const encf = ctx.route.params[0]!;
  const { data: r } = await api.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } });
  if (!r) return h("p", {}, "No existe ese comprobante.");
  const xml = await (await sessionFetch(r.links.xml)).text();
  const { lines, totals } = linesOf(xml);
  const status = statusLine();
  const to = h("input", { type: "email", name: "to", required: true });
  const resend = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      await api.POST("/fe/recepcion/ecf/{encf}/email", { params: { path: { encf } }, body: { to: to.value.trim() } });
      status.textContent = `Correo en cola para ${to.value.trim()}.`;
    });
  };
  const accepted = ["Aceptado", "Aceptado Condicional"].includes(r.estado);
  // A note modifies an invoice, never another note.
  const modifiable = accepted && !/^E3[34]/.test(encf);
  const canNote = may(ctx.session.role, "issue") && modifiable;
  const notes = modifiable ? await notesOf(encf) : undefined;
  return h(
    "section",
    { class: "receipt" },
    h("h1", {}, `${r.encf} `, badge(r.estado)),
    h("p", {}, `${TIPO_NOMBRE[encf.slice(1, 3)] ?? ""} · emitido ${day(r.fechaEmision)} · código ${r.codigoSeguridad}`),
    table(
      "Líneas",
      ["#", "Descripción", "Cantidad", "Precio", "Monto"],
      lines.map(([n, name, qty, price, amount]) => [n!, name!, qty!, money(price), money(amount)]),
    ),
    table(
      "Totales",
      ["Concepto", "Monto"],
      totals.map(([k, v]) => [k, totalText(k, v)]),
    ),
    h("h2", {}, "Mensajes de la DGII"),
    r.mensajes.length
      ? h("ul", {}, ...r.mensajes.map((m) => h("li", {}, `${m.codigo ? `${m.codigo}: ` : ""}${m.valor}`)))
      : h("p", {}, "Ninguno."),
    notes ? notesSection(notes) : null,
    h("h2", {}, "Historial"),
    timeline(r, notes),
    h(
      "p",
      { class: "actions-row" },
      h("button", { type: "button", onclick: () => download(r.links.xml, `${encf}.xml`) }, "Descargar XML"),
      h("button", { type: "button", onclick: () => download(r.links.pdf, `${encf}.pdf`) }, "Descargar PDF"),
      canNote ? h("a", { class: "button", href: `#/emitir/34?ref=${encf}` }, "Nota de crédito (E34)") : null,
      canNote ? h("a", { class: "button", href: `#/emitir/33?ref=${encf}` }, "Nota de débito (E33)") : null,
    ),
    h(
      "form",
      { class: "inline-form", onsubmit: resend, "aria-label": "Reenviar por correo" },
      field("Reenviar por correo a", to),
      h("button", { type: "submit" }, "Reenviar"),
    ),
    status,
  );
};

/** The credit and debit notes DGII accepted on this receipt and the balance they leave. */
function notesSection(notes: ReceiptNotes): HTMLElement {
  return h(
    "article",
    { class: "card notes", "aria-labelledby": "notas" },
    h("h2", { id: "notas" }, "Notas de crédito y débito"),
    h("p", { class: "balance" }, balanceText(notes, balanceOf(notes))),
    notes.notes.length
      ? table(
          "Notas aceptadas",
          ["e-NCF", "Fecha", "Código", "Monto"],
          notes.notes.map((n) => [
            receiptLink(n.encf),
            day(n.fechaEmision),
            n.codigoModificacion,
            h("span", { class: "num" }, money(n.montoTotal)),
          ]),
        )
      : h("p", {}, "Ninguna."),
    h("p", { class: "rule" }, BALANCE_RULE),
  );
}

/** A Totales element as a person reads it: ITBIS1-3 are rates (18, 16, 0), the rest amounts. */
function totalText(name: string, value: string): string {
  if (/^ITBIS\d$/.test(name)) return `${value} %`;
  return /^-?\d+(\.\d+)?$/.test(value) ? money(value) : value;
}

type Answer = components["schemas"]["IssueAnswer"];

/**
 * The receipt's history, from what its record holds (the worker keeps no separate event log: the
 * webhook events are queued only for subscribed endpoints): signing, DGII's verdict, the delivery
 * to the buyer, each e-mail, the buyer's commercial approval and the notes DGII accepted on it.
 */
function timeline(r: Answer, notes: ReceiptNotes | undefined): HTMLElement {
  const events: [string, string][] = [[r.fechaHoraFirma, "Firmado"]];
  if (r.trackId) events.push([r.fechaHoraFirma, `Enviado a la DGII (trackId ${r.trackId}): ${r.estado}`]);
  if (r.buyerDelivery?.at) events.push([r.buyerDelivery.at, `Entrega al comprador: ${r.buyerDelivery.state}`]);
  for (const e of r.emails ?? []) events.push([e.at, `Correo a ${e.to}: ${e.state}`]);
  if (r.aprobacionComercial?.fechaHoraAprobacionComercial)
    events.push([
      r.aprobacionComercial.fechaHoraAprobacionComercial,
      `Aprobación comercial: ${r.aprobacionComercial.estado}`,
    ]);
  for (const n of notes?.notes ?? [])
    events.push([day(n.fechaEmision), `${TIPO_NOMBRE[n.tipoeCF]} ${n.encf} aceptada: ${money(n.montoTotal)}`]);
  return h(
    "ol",
    { class: "timeline" },
    ...events.map(([at, what]) => h("li", {}, h("time", {}, when(at)), ` ${what}`)),
  );
}
