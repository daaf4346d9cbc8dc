// Clientes: the company's buyers (the buyers of its receipts come in by themselves), each with its
// RNC or cédula, name, e-mail and whether DGII's directory lists it as an electronic receiver; one
// is added or edited here (the name from DGII's taxpayer registry), and invoiced in one click.
import type { components } from "@ecf/client";
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";

type Customer = components["schemas"]["Customer"];

const receiverText = (c: Customer) =>
  c.electronicReceiver === null ? "Sin consultar" : c.electronicReceiver ? "Sí" : "No";

export const customersPage: Page = async (ctx) => {
  const { data } = await api.GET("/customers", {});
  const items = data?.items ?? [];
  const canEdit = ctx.session.role === "owner";
  const editor = h("div", { class: "customer-editor" });
  const edit = (c?: Customer) => customerForm(c, editor, ctx.reload);
  return h(
    "section",
    {},
    h("h1", {}, "Clientes"),
    canEdit ? h("button", { type: "button", onclick: () => edit() }, "Cliente nuevo") : null,
    editor,
    table(
      `${items.length} clientes`,
      ["RNC o cédula", "Nombre", "Correo", "Receptor electrónico", ""],
      items.map((c) => [
        c.rnc,
        c.name,
        c.email ?? "—",
        receiverText(c),
        h(
          "span",
          { class: "actions-row" },
          canEdit ? h("button", { type: "button", onclick: () => edit(c) }, `Editar ${c.name}`) : null,
          may(ctx.session.role, "issue")
            ? h("a", { class: "button", href: `#/emitir/31?rnc=${c.rnc}` }, `Facturar a ${c.name}`)
            : null,
        ),
      ]),
    ),
  );
};

function customerForm(c: Customer | undefined, box: HTMLElement, reload: () => void): void {
  const rnc = h("input", { name: "rnc", inputmode: "numeric", value: c?.rnc ?? "", readonly: c ? true : null });
  const name = h("input", { name: "nombre", value: c?.name ?? "" });
  const email = h("input", { name: "correo", type: "email", value: c?.email ?? "" });
  const status = statusLine();
  rnc.addEventListener("change", async () => {
    if (!/^\d{9}(\d{2})?$/.test(rnc.value.trim()) || name.value.trim()) return;
    try {
      const { data } = await api.GET("/contribuyentes/{rnc}", { params: { path: { rnc: rnc.value.trim() } } });
      if (data) name.value = data.legalName;
    } catch {
      // Not in the registry: the name is typed.
    }
  });
  const save = async (event: Event) => {
    event.preventDefault();
    if (!/^\d{9}(\d{2})?$/.test(rnc.value.trim())) {
      status.textContent = "El RNC tiene 9 dígitos y la cédula 11, sin guiones.";
      rnc.setAttribute("aria-invalid", "true");
      return rnc.focus();
    }
    if (!name.value.trim()) {
      status.textContent = "Escriba el nombre o la razón social.";
      return name.focus();
    }
    await reportingTo(status, async () => {
      await api.PUT("/customers/{rnc}", {
        params: { path: { rnc: rnc.value.trim() } },
        body: { name: name.value.trim(), email: email.value.trim() || null },
      });
      reload();
    });
  };
  box.replaceChildren(
    h(
      "form",
      {
        class: "inline-form",
        onsubmit: save,
        "aria-label": c ? `Editar ${c.name}` : "Cliente nuevo",
        novalidate: true,
      },
      field("RNC o cédula del cliente", rnc, "9 o 11 dígitos; el nombre se busca en el registro de la DGII"),
      field("Nombre o razón social", name),
      field("Correo (opcional)", email),
      h("button", { type: "submit", class: "primary" }, "Guardar cliente"),
    ),
    status,
  );
  (c ? name : rnc).focus();
}
