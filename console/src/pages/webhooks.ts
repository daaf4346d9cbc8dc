// Webhook endpoints of the settings page: list, create (the signing secret shown once), deliveries.
import type { components } from "@ecf/client";
import { api, problemText } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { dayTime } from "../format.ts";

type WebhookEvent = components["schemas"]["NewWebhookEndpoint"]["events"][number];
const EVENTS: WebhookEvent[] = [
  "receipt.accepted",
  "receipt.accepted_conditionally",
  "receipt.rejected",
  "receipt.contingency",
  "receipt.delivered",
  "receipt.delivery_failed",
  "approval.received",
  "purchase.received",
  "purchase.unconfirmed",
  "certificate.expiring",
  "quota.near_limit",
];

export async function webhooksSection(reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/webhooks");
  const url = h("input", { type: "url", name: "url", required: true, placeholder: "https://" });
  const boxes = EVENTS.map((e) => h("input", { type: "checkbox", name: "evento", value: e, checked: true }));
  const status = statusLine();
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const events = boxes.filter((b) => b.checked).map((b) => b.value as WebhookEvent);
      const { data: created } = await api.POST("/webhooks", { body: { url: url.value.trim(), events } });
      const secret = (created as { secret?: string } | undefined)?.secret;
      status.textContent = secret ? `Creado. Secreto de firma (se muestra una sola vez): ${secret}` : "Creado.";
    } catch (e) {
      status.textContent = problemText(e);
    }
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Webhooks"),
    table(
      "Destinos de webhooks",
      ["URL", "Eventos", "Estado", "Creado"],
      (data?.webhooks ?? []).map((w) => [
        w.url,
        w.events.join(", "),
        w.disabledAt ? `Desactivado: ${w.disabledReason ?? ""}` : "Activo",
        dayTime(w.createdAt),
      ]),
    ),
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
