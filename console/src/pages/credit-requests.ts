// Crédito fiscal: the buyers' requests to exchange a consumer receipt for a crédito fiscal invoice
// (made on the receipt's public page), waiting for an owner or accountant when the company chose
// to approve them first: approve (the invoice is issued and sent to DGII) or reject with a reason.
// The owner also chooses here how requests are handled and what is done with the consumer receipt.
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { dayTime } from "../format.ts";
import type { Page } from "../page.ts";
import type { components } from "@ecf/client";

type Request = components["schemas"]["CreditoFiscalRequestView"];
type Approval = components["schemas"]["CompanyProfile"]["creditoFiscalApproval"];
type E32Choice = components["schemas"]["CompanyProfile"]["creditoFiscalE32"];

const APPROVAL_NOMBRE: Record<Approval, string> = {
  at_once: "Se emiten al momento, sin revisión",
  approval: "Esperan la aprobación del dueño o del contador",
};
const E32_NOMBRE: Record<E32Choice, string> = {
  none: "Se deja como está (la factura nueva la menciona)",
  credit_note: "Se anula con una nota de crédito",
};
const ESTADO_NOMBRE: Record<Request["status"], string> = {
  pending: "Pendiente",
  issuing: "Emitiendo…",
  issued: "Aprobada, factura emitida",
  declined: "Rechazada",
};

/** The note voiding the consumer receipt, when the company chose one. */
function creditNoteText(r: Request): string {
  switch (r.creditNote) {
    case "issued":
      return r.e34 ?? "Emitida";
    case "owed":
      return "Pendiente: se emitirá automáticamente";
    case "failed":
      return "No se pudo emitir: emítala a mano";
    default:
      return "—";
  }
}

export const creditRequestsPage: Page = async (ctx) => {
  const owner = ctx.session.role === "owner";
  const [{ data: me }, { data }] = await Promise.all([api.GET("/company/me"), api.GET("/credito-fiscal/requests")]);
  const items = data?.items ?? [];
  const waiting = items.filter((r) => r.status === "pending");
  return h(
    "section",
    {},
    h("h1", {}, "Crédito fiscal"),
    h(
      "p",
      {},
      "Clientes que pagaron como consumidor final y pidieron, desde la página de su comprobante, una factura con crédito fiscal.",
    ),
    owner ? choicesSection(me!.creditoFiscalApproval, me!.creditoFiscalE32, ctx.reload) : null,
    h(
      "article",
      { class: "card" },
      h("h2", {}, "Solicitudes pendientes"),
      waiting.length === 0
        ? h("p", {}, "No hay solicitudes pendientes.")
        : h("ul", { class: "requests" }, ...waiting.map((r) => pendingItem(r, ctx.reload))),
    ),
    h(
      "article",
      { class: "card" },
      h("h2", {}, "Solicitudes decididas"),
      table(
        "Solicitudes decididas",
        ["Comprobante", "RNC o cédula", "Estado", "Factura emitida", "Nota de crédito", "Motivo", "Decidida"],
        items
          .filter((r) => r.status !== "pending")
          .map((r) => [
            r.e32,
            r.rncComprador,
            ESTADO_NOMBRE[r.status],
            r.e31 ?? "—",
            creditNoteText(r),
            r.reason ?? "—",
            dayTime(r.decidedAt),
          ]),
      ),
    ),
  );
};

/** One waiting request: approve, or reject with a reason. */
function pendingItem(r: Request, reload: () => void): HTMLElement {
  const reason = h("input", { name: "motivo", maxlength: 500, required: true });
  const status = statusLine();
  const approve = () =>
    reportingTo(status, async () => {
      await api.POST("/credito-fiscal/requests/{id}/approve", { params: { path: { id: r.id } } });
      reload();
    });
  const reject = (event: Event) => {
    event.preventDefault();
    return reportingTo(status, async () => {
      const body = { reason: reason.value };
      await api.POST("/credito-fiscal/requests/{id}/reject", { params: { path: { id: r.id } }, body });
      reload();
    });
  };
  return h(
    "li",
    { class: "card", "data-solicitud": r.e32 },
    h("p", {}, `Comprobante ${r.e32} · RNC o cédula ${r.rncComprador} · pedida ${dayTime(r.createdAt)}`),
    r.email ? h("p", {}, `Enviar la factura a ${r.email}`) : null,
    h("button", { type: "button", onclick: approve }, `Aprobar y emitir la factura de ${r.e32}`),
    h(
      "form",
      { class: "inline-form", onsubmit: reject, "aria-label": `Rechazar la solicitud de ${r.e32}` },
      field("Motivo del rechazo", reason),
      h("button", { type: "submit" }, "Rechazar"),
    ),
    status,
  );
}

/** The owner's two choices (PATCH /company/me). */
function choicesSection(approval: Approval, e32: E32Choice, reload: () => void): HTMLElement {
  const options = <T extends string>(name: string, names: Record<T, string>, current: T) =>
    h(
      "select",
      { name },
      ...(Object.keys(names) as T[]).map((v) => h("option", { value: v, selected: v === current }, names[v])),
    );
  const approvalSelect = options("aprobacion", APPROVAL_NOMBRE, approval);
  const e32Select = options("consumo", E32_NOMBRE, e32);
  const status = statusLine();
  const save = (event: Event) => {
    event.preventDefault();
    return reportingTo(status, async () => {
      const body = {
        creditoFiscalApproval: approvalSelect.value as Approval,
        creditoFiscalE32: e32Select.value as E32Choice,
      };
      await api.PATCH("/company/me", { body });
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Cómo se atienden"),
    h(
      "form",
      { class: "inline-form", onsubmit: save, "aria-label": "Cómo se atienden las solicitudes" },
      field("Las solicitudes", approvalSelect),
      field("La factura de consumo", e32Select),
      h("button", { type: "submit" }, "Guardar"),
    ),
    status,
  );
}
