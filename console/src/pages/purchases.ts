// Compras: the e-CF suppliers sent, with DGII's confirmation state; approve or reject each
// (ACECF, a rejection with its reason) and classify it for the 606, the supplier's learned
// defaults shown as suggestions, not as what was given.
import type { components } from "@ecf/client";
import { money } from "@ecf/ui-kit";
import { api, jsonOf, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { day, parseDay } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";
import { badge } from "./today.ts";

type Purchase = components["schemas"]["ComprasReportItem"];
type Classification = components["schemas"]["PurchaseClassification"];
type Classified = components["schemas"]["ClassifiedPurchase"];

const TIPOS_BIENES: [string, string][] = [
  ["01", "Gastos de personal"],
  ["02", "Trabajos, suministros y servicios"],
  ["03", "Arrendamientos"],
  ["04", "Activos fijos"],
  ["05", "Representación"],
  ["06", "Otras deducciones admitidas"],
  ["07", "Gastos financieros"],
  ["08", "Gastos extraordinarios"],
  ["09", "Costo de venta"],
  ["10", "Adquisiciones de activos"],
  ["11", "Seguros"],
];
const FORMAS_PAGO: [string, string][] = [
  ["01", "Efectivo"],
  ["02", "Cheque, transferencia o depósito"],
  ["03", "Tarjeta de crédito o débito"],
  ["04", "Compra a crédito"],
  ["05", "Permuta"],
  ["06", "Nota de crédito"],
  ["07", "Mixto"],
];

export const purchasesPage: Page = async (ctx) => {
  const data = jsonOf((await api.GET("/reports/compras", { params: { query: { pageSize: "500" } } })).data);
  const items = [...(data?.items ?? [])].reverse();
  const canAct = may(ctx.session.role, "purchases");
  const detail = h("div", { class: "purchase-detail" });
  return h(
    "section",
    {},
    h("h1", {}, "Compras"),
    table(
      `${data?.total ?? 0} comprobantes recibidos`,
      ["e-NCF", "Proveedor", "Fecha", "Total", "DGII", "Aprobación", ""],
      items.map((p) => [
        p.encf,
        p.razonSocialEmisor ?? p.rncEmisor,
        day(p.fechaEmision),
        h("span", { class: "num" }, money(p.montoTotal)),
        badge(p.estadoDgii),
        p.aprobacionComercial ? badge(p.aprobacionComercial) : h("span", {}, "—"),
        canAct
          ? h(
              "button",
              { type: "button", "aria-label": `Abrir ${p.encf}`, onclick: () => void open(p, detail, ctx.reload) },
              "Abrir",
            )
          : "",
      ]),
    ),
    detail,
  );
};

async function open(p: Purchase, box: HTMLElement, reload: () => void): Promise<void> {
  const { data: c } = await api.GET("/compras/{id}/clasificacion", { params: { path: { id: p.id } } });
  const status = statusLine();
  const motivo = h("input", { name: "motivo" });
  const decide = async (estado: "Aceptado" | "Rechazado") => {
    if (estado === "Rechazado" && !motivo.value.trim()) {
      status.textContent = "Escriba el motivo del rechazo.";
      motivo.focus();
      return;
    }
    await reportingTo(status, async () => {
      const body = estado === "Rechazado" ? { estado, motivo: motivo.value.trim() } : { estado };
      await api.POST("/compras/{id}/aprobacion", { params: { path: { id: p.id } }, body });
      status.textContent = estado === "Aceptado" ? "Compra aprobada." : "Compra rechazada.";
      reload();
    });
  };
  const override = async () => {
    if (!motivo.value.trim()) {
      status.textContent = "Escriba por qué la compra cuenta aunque la DGII no la confirme.";
      motivo.focus();
      return;
    }
    await reportingTo(status, async () => {
      await api.POST("/compras/{id}/confirmacion-manual", {
        params: { path: { id: p.id } },
        body: { motivo: motivo.value.trim() },
      });
      status.textContent = "La compra cuenta (confirmación manual registrada).";
      reload();
    });
  };
  box.replaceChildren(
    h("h2", {}, `${p.encf} de ${p.razonSocialEmisor ?? p.rncEmisor}`),
    h(
      "div",
      { class: "actions-row", role: "group", "aria-label": "Aprobación comercial" },
      field("Motivo (rechazo o confirmación manual)", motivo),
      h("button", { type: "button", class: "primary", onclick: () => void decide("Aceptado") }, "Aprobar"),
      h("button", { type: "button", onclick: () => void decide("Rechazado") }, "Rechazar"),
      p.confirmada
        ? null
        : h("button", { type: "button", onclick: () => void override() }, "Contar sin confirmación de la DGII"),
    ),
    p.confirmada ? "" : h("p", { class: "warn" }, `La DGII aún no confirma este comprobante (${p.estadoDgii}).`),
    classifyForm(p, c, status),
    status,
  );
  box.querySelector("h2")?.setAttribute("tabindex", "-1");
  (box.querySelector("h2") as HTMLElement | null)?.focus();
}

/** The 606 classification of one purchase; what the supplier's defaults would give is shown, not chosen. */
function classifyForm(p: Purchase, c: Classified | undefined, status: HTMLElement): HTMLFormElement {
  const given = c?.classification ?? {};
  const effective = c?.effective;
  const suggested = (key: "tipoBienesServicios" | "formaPago" | "fechaPago") =>
    effective?.sources[key] && effective.sources[key] !== "purchase" ? effective[key] : null;
  const tipo = choice("tipoBienesServicios", TIPOS_BIENES, given.tipoBienesServicios, suggested("tipoBienesServicios"));
  const forma = choice("formaPago", FORMAS_PAGO, given.formaPago, suggested("formaPago"));
  const fecha = h("input", {
    name: "fechaPago",
    placeholder: suggested("fechaPago") ? day(suggested("fechaPago")) : "dd-MM-aaaa",
    value: given.fechaPago ? day(given.fechaPago) : "",
  });
  const save = async (event: Event) => {
    event.preventDefault();
    const body: Classification = {};
    if (tipo.value) body.tipoBienesServicios = tipo.value as Classification["tipoBienesServicios"];
    if (forma.value) body.formaPago = forma.value as Classification["formaPago"];
    if (fecha.value.trim()) {
      const iso = parseDay(fecha.value);
      if (!iso) {
        status.textContent = "Escriba la fecha de pago como dd-MM-aaaa.";
        return;
      }
      body.fechaPago = iso;
    }
    await reportingTo(status, async () => {
      const { data: saved } = await api.PATCH("/compras/{id}", { params: { path: { id: p.id } }, body });
      status.textContent = saved?.missing.length
        ? `Guardado. Falta: ${saved.missing.map((m) => m.message).join("; ")}`
        : "Clasificación guardada.";
    });
  };
  return h(
    "form",
    { class: "classify", onsubmit: save, "aria-label": "Clasificación 606" },
    field("Tipo de bienes y servicios", tipo, hint(suggested("tipoBienesServicios"), TIPOS_BIENES)),
    field("Forma de pago", forma, hint(suggested("formaPago"), FORMAS_PAGO)),
    field("Fecha de pago", fecha, suggested("fechaPago") ? `Sugerida: ${day(suggested("fechaPago"))}` : undefined),
    c?.missing.length ? h("p", { class: "warn" }, `Falta: ${c.missing.map((m) => m.message).join("; ")}`) : null,
    h("button", { type: "submit", class: "primary" }, "Guardar clasificación"),
  );
}

/** A select whose first option is "not given"; a suggestion is named in it, not chosen for the user. */
function choice(
  name: string,
  options: [string, string][],
  given: string | null | undefined,
  suggestion: string | null,
) {
  const label = suggestion ? `Sin indicar (sugerido: ${suggestion})` : "Sin indicar";
  return h(
    "select",
    { name },
    h("option", { value: "" }, label),
    ...options.map(([v, text]) => h("option", { value: v, selected: v === given }, `${v} ${text}`)),
  );
}

function hint(suggestion: string | null, options: [string, string][]): string | undefined {
  if (!suggestion) return undefined;
  const label = options.find(([v]) => v === suggestion)?.[1] ?? "";
  return `Sugerido por las compras anteriores del proveedor: ${suggestion} ${label}`;
}
