// The company's API keys in Configuración (owner only): the list, a new key whose key and secret
// are shown once (with copy buttons and a warning), and revocation after a confirmation.
import type { components } from "@ecf/client";
import { api, reportingTo } from "../api.ts";
import { h, statusLine, table } from "../dom.ts";
import { dayTime } from "../format.ts";

type ApiKey = components["schemas"]["ApiKey"];
type Created = components["schemas"]["KeyCreated"];

/** A value with a button that copies it (the clipboard needs a secure context: localhost or https). */
function copyable(label: string, value: string, status: HTMLElement): HTMLElement {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      status.textContent = `Copiado: ${label.toLowerCase()}.`;
    } catch {
      status.textContent = `No se pudo copiar: seleccione el texto de ${label.toLowerCase()} y cópielo.`;
    }
  };
  return h(
    "div",
    { class: "inline" },
    h("span", {}, `${label}: `),
    h("code", { "data-copy": label }, value),
    h("button", { type: "button", onclick: copy, "aria-label": `Copiar ${label.toLowerCase()}` }, "Copiar"),
  );
}

/** The key just created: the only time its key and secret are seen. */
function createdBox(created: Created, status: HTMLElement): HTMLElement {
  return h(
    "div",
    { class: "card nueva-clave", role: "region", "aria-label": "Clave API nueva" },
    h(
      "p",
      { class: "warn" },
      "Guarde la clave y el secreto ahora: no se mostrarán otra vez. ",
      "Quien los tenga puede emitir comprobantes a nombre de la empresa.",
    ),
    h("p", {}, "Identificador público (el de la lista): ", h("code", { class: "key-id" }, created.id)),
    copyable("Clave", created.apiKey, status),
    copyable("Secreto", created.apiSecret, status),
  );
}

function state(key: ApiKey): string {
  return key.revokedAt ? `Revocada ${dayTime(key.revokedAt)}` : "Activa";
}

export async function apiKeysSection(): Promise<HTMLElement> {
  const status = statusLine();
  const list = h("div", {});
  const shown = h("div", {});
  const render = async () => {
    await reportingTo(status, async () => {
      const keys = (await api.GET("/company/api-keys")).data?.keys ?? [];
      list.replaceChildren(keysTable(keys, render, status));
    });
  };
  const create = async () => {
    await reportingTo(status, async () => {
      const { data } = await api.POST("/company/api-keys");
      shown.replaceChildren(createdBox(data!, status));
      status.textContent = `Clave ${data!.id} creada.`;
      await render();
    });
  };
  await render();
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Claves API"),
    h("p", {}, "Para que un sistema (ERP, tienda en línea) emita por la API. Cada clave se muestra una sola vez."),
    list,
    h("button", { type: "button", class: "primary", onclick: create }, "Crear clave API"),
    shown,
    status,
  );
}

function keysTable(keys: ApiKey[], render: () => Promise<void>, status: HTMLElement): HTMLElement {
  return table(
    "Claves API de la empresa",
    ["Clave", "Tipo", "Creada", "Último uso", "Estado", ""],
    keys.map((k) => [
      h("code", {}, k.id),
      k.kind === "live" ? "Producción" : "Pruebas",
      dayTime(k.createdAt),
      dayTime(k.lastUsedAt),
      state(k),
      k.revokedAt ? "" : revokeControl(k, render, status),
    ]),
  );
}

/** "Revocar" asks once more before the key stops working. */
function revokeControl(key: ApiKey, render: () => Promise<void>, status: HTMLElement): HTMLElement {
  const cell = h("div", { class: "inline" });
  const revoke = async () => {
    await reportingTo(status, async () => {
      await api.POST("/company/api-keys/{id}/revoke", { params: { path: { id: key.id } } });
      status.textContent = `Clave ${key.id} revocada.`;
      await render();
    });
  };
  const ask = () =>
    cell.replaceChildren(
      h("span", { class: "warn" }, "Lo que use esta clave dejará de funcionar. ¿Revocar?"),
      h("button", { type: "button", onclick: revoke }, `Sí, revocar ${key.id}`),
      h("button", { type: "button", onclick: () => cell.replaceChildren(first) }, "Cancelar"),
    );
  const first = h("button", { type: "button", onclick: ask }, `Revocar ${key.id}`);
  cell.append(first);
  return cell;
}
