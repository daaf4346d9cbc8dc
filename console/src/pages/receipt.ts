// A receipt as its owner reads it: the buyer, the payment terms and due date, the lines and each
// total with its Spanish label (read from the signed XML, the fiscal document itself), DGII's
// messages, the whole history, the XML and the printed copy, resending the e-mail, and a credit
// or debit note on it.
import type { components } from "@ecf/client";
import { money } from "@ecf/ui-kit";
import { api, download, reportingTo, sessionFetch } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { day, TIPO_NOMBRE, when } from "../format.ts";
import type { Page } from "../page.ts";
import { type ReceiptReading, readReceipt } from "../receipt-reading.ts";
import { may } from "../session.ts";
import { BALANCE_RULE, balanceOf, balanceText, notesOf, type ReceiptNotes } from "./balance.ts";
import { badge, receiptLink } from "./today.ts";

type Answer = components["schemas"]["IssueAnswer"];

export const receiptPage: Page = async (ctx) => {
  const encf = ctx.route.params[0]!;
  const { data: r } = await api.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } });
  if (!r) return h("p", {}, "No existe ese comprobante.");
  const reading = readReceipt(await (await sessionFetch(r.links.xml)).text());
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
    facts(reading),
    table(
      "Líneas",
      ["#", "Descripción", "Cantidad", "Precio", "Monto"],
      reading.lines.map(([n, name, qty, price, amount]) => [n!, name!, qty!, money(price), money(amount)]),
    ),
    table(
      "Totales",
      ["Concepto", "Monto"],
      reading.totals.map(([label, amount]) => [label, h("span", { class: "num" }, money(amount))]),
    ),
    h("h2", {}, "Mensajes de la DGII"),
    r.mensajes.length ? h("ul", {}, ...r.mensajes.map((m) => h("li", {}, m.valor))) : h("p", {}, "Ninguno."),
    notes ? notesSection(notes) : null,
    h("h2", {}, "Historial"),
    timeline(r, notes),
    h(
      "p",
      { class: "actions-row" },
      h("button", { type: "button", onclick: () => download(r.links.xml, `${encf}.xml`) }, "Descargar XML"),
      h("button", { type: "button", onclick: () => download(r.links.pdf, `${encf}.pdf`) }, "Descargar PDF"),
      h("a", { class: "button", href: r.links.pdf, target: "_blank", rel: "noopener" }, "Ver la copia impresa"),
      canNote ? h("a", { class: "button", href: `#/emitir/34?ref=${encf}` }, "Nota de crédito (E34)") : null,
      canNote ? h("a", { class: "button", href: `#/emitir/33?ref=${encf}` }, "Nota de débito (E33)") : null,
    ),
    resendForm(encf),
  );
};

/** Who bought, and how and when it is to be paid. */
function facts(reading: ReceiptReading): HTMLElement {
  const { buyer, payment } = reading;
  const row = (label: string, value: string) => (value ? [h("dt", {}, label), h("dd", {}, value)] : []);
  const formas = payment.formas.map(([forma, monto]) => `${forma} ${money(monto)}`).join(", ");
  return h(
    "dl",
    { class: "facts" },
    ...row("Comprador", buyer ? `${buyer.name}${buyer.id ? ` (${buyer.id})` : ""}` : "Consumidor final"),
    ...row("Correo del comprador", buyer?.email ?? ""),
    ...row("Condición de pago", payment.condicion),
    ...row("Plazo", payment.termino),
    ...row("Fecha límite de pago", payment.fechaLimite),
    ...row("Formas de pago", formas),
  );
}

function resendForm(encf: string): HTMLElement {
  const status = statusLine();
  const to = h("input", { type: "email", name: "to", required: true });
  const resend = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      await api.POST("/fe/recepcion/ecf/{encf}/email", { params: { path: { encf } }, body: { to: to.value.trim() } });
      status.textContent = `Correo en cola para ${to.value.trim()}.`;
    });
  };
  return h(
    "div",
    {},
    h(
      "form",
      { class: "inline-form", onsubmit: resend, "aria-label": "Reenviar por correo" },
      field("Reenviar por correo a", to),
      h("button", { type: "submit" }, "Reenviar"),
    ),
    status,
  );
}

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

/**
 * The receipt's history, from what its record holds (the worker keeps no separate event log: the
 * webhook events are queued only for subscribed endpoints): signing, the sending and DGII's
 * verdict (a consumer invoice under 250,000 goes as its summary), the delivery to the buyer, each
 * e-mail, the buyer's commercial approval and the notes DGII accepted on it.
 */
function timeline(r: Answer, notes: ReceiptNotes | undefined): HTMLElement {
  const events: [string, string][] = [[r.fechaHoraFirma, "Firmado"]];
  if (r.trackId) events.push([r.fechaHoraFirma, `Enviado a la DGII (trackId ${r.trackId}): ${r.estado}`]);
  else if (r.estado !== "Contingencia") events.push([r.fechaHoraFirma, `Resumen enviado a la DGII: ${r.estado}`]);
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
