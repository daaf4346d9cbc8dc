// Webhook endpoints of the settings page: list, create (the signing secret shown once), each
// endpoint's recent deliveries and a "Reenviar" that queues one again (same webhook-id and body).
import type { components } from "@ecf/client";
import { EVENT_TYPES, type EventType } from "@ecf/shared/webhook-events";
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { dayTime } from "../format.ts";

type Endpoint = components["schemas"]["WebhookEndpoint"];
type Delivery = components["schemas"]["WebhookDelivery"];

const ESTADO: Record<Delivery["status"], string> = { pending: "Pendiente", done: "Entregado", failed: "Fallido" };

function lastResult(d: Delivery): string {
  if (!d.lastResult) return "—";
  return "httpStatus" in d.lastResult ? `HTTP ${d.lastResult.httpStatus}` : d.lastResult.error;
}

/** One endpoint's deliveries, newest first, each with a Reenviar button. */
async function deliveriesOf(endpoint: Endpoint, status: HTMLElement, reload: () => void): Promise<HTMLElement> {
  let deliveries: Delivery[] = [];
  await reportingTo(status, async () => {
    const { data } = await api.GET("/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id } } });
    deliveries = data?.deliveries ?? [];
  });
  const redeliver = (d: Delivery) => async () => {
    await reportingTo(status, async () => {
      await api.POST("/webhooks/{id}/deliveries/{deliveryId}/retry", {
        params: { path: { id: endpoint.id, deliveryId: d.id } },
      });
      status.textContent = `Reenvío de ${d.id} en cola.`;
      reload();
    });
  };
  return table(
    `Entregas a ${endpoint.url}`,
    ["Evento", "e-NCF", "Estado", "Intentos", "Última respuesta", "Creada", ""],
    deliveries.map((d) => [
      d.event,
      d.encf ?? "—",
      ESTADO[d.status],
      String(d.attempts),
      lastResult(d),
      dayTime(d.createdAt),
      h("button", { type: "button", onclick: redeliver(d), "aria-label": `Reenviar ${d.event} ${d.id}` }, "Reenviar"),
    ]),
  );
}

export async function webhooksSection(reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/webhooks");
  const endpoints = data?.webhooks ?? [];
  const url = h("input", { type: "url", name: "url", required: true, placeholder: "https://" });
  const boxes = EVENT_TYPES.map((e) => h("input", { type: "checkbox", name: "evento", value: e, checked: true }));
  const status = statusLine();
  const deliveries = await Promise.all(endpoints.map((w) => deliveriesOf(w, status, reload)));
  const create = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      const events = boxes.filter((b) => b.checked).map((b) => b.value as EventType);
      const { data: created } = await api.POST("/webhooks", { body: { url: url.value.trim(), events } });
      const secret = (created as { secret?: string } | undefined)?.secret;
      status.textContent = secret ? `Creado. Secreto de firma (se muestra una sola vez): ${secret}` : "Creado.";
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Webhooks"),
    table(
      "Destinos de webhooks",
      ["URL", "Eventos", "Estado", "Creado"],
      endpoints.map((w) => [
        w.url,
        w.events.join(", "),
        w.disabledAt ? `Desactivado: ${w.disabledReason ?? ""}` : "Activo",
        dayTime(w.createdAt),
      ]),
    ),
    ...deliveries,
    h(
      "form",
      { class: "stack-form", onsubmit: create, "aria-label": "Nuevo webhook" },
      field("URL", url),
      h("fieldset", {}, h("legend", {}, "Eventos"), ...boxes.map((b) => h("label", { class: "check" }, b, b.value))),
      h("button", { type: "submit" }, "Crear webhook"),
      h("button", { type: "button", onclick: reload }, "Actualizar lista"),
    ),
    status,
  );
}
