// The console's users of the current company (owner only): list, change role, remove, invite by
// e-mail, and the invitations still pending (cancel one: its link stops working).
import { problemText } from "@ecf/ui-kit";
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { day } from "../format.ts";
import type { components } from "@ecf/client";
import { ROLE_NOMBRE, type Role } from "../session.ts";

type User = components["schemas"]["ConsoleUser"];

const ROLES: Role[] = ["owner", "accountant", "manager"];

function roleSelect(name: string, value: Role): HTMLSelectElement {
  return h("select", { name }, ...ROLES.map((r) => h("option", { value: r, selected: r === value }, ROLE_NOMBRE[r])));
}

type Pending = components["schemas"]["ConsolePendingInvitation"];

/** The invitations nobody accepted yet, each with its Cancelar button; nothing when there are none. */
function pendingTable(pending: Pending[], act: (run: () => Promise<unknown>) => () => void): HTMLElement | null {
  if (!pending.length) return null;
  return table(
    "Invitaciones pendientes",
    ["Correo", "Rol", "Vence", ""],
    pending.map((p) => [
      p.email,
      ROLE_NOMBRE[p.role],
      day(p.expiresAt),
      h(
        "button",
        {
          type: "button",
          onclick: act(() => api.POST("/console/invitations/{id}/cancel", { params: { path: { id: p.id } } })),
        },
        `Cancelar la invitación de ${p.email}`,
      ),
    ]),
  );
}

export async function usersSection(me: string, reload: () => void): Promise<HTMLElement> {
  const status = statusLine();
  let users: User[] = [];
  let pending: Pending[] = [];
  await reportingTo(status, async () => {
    const [listed, invited] = await Promise.all([api.GET("/console/users"), api.GET("/console/invitations")]);
    users = listed.data?.items ?? [];
    pending = invited.data?.items ?? [];
  });
  const act = (run: () => Promise<unknown>) => () =>
    run().then(reload, (e: unknown) => (status.textContent = problemText(e)));
  const email = h("input", { type: "email", name: "correo-invitado", required: true });
  const name = h("input", { name: "nombre-invitado" });
  const role = roleSelect("rol-invitado", "accountant");
  const invite = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      const body = {
        email: email.value.trim(),
        role: role.value as Role,
        ...(name.value.trim() ? { name: name.value.trim() } : {}),
      };
      await api.POST("/console/invitations", { body });
      status.textContent = `Invitación enviada a ${email.value.trim()}.`;
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Usuarios"),
    table(
      "Usuarios de la consola",
      ["Correo", "Nombre", "Rol", ""],
      users.map((u) => {
        const select = roleSelect(`rol-${u.id}`, u.role);
        select.setAttribute("aria-label", `Rol de ${u.email}`);
        select.addEventListener(
          "change",
          act(() =>
            api.PATCH("/console/users/{id}", { params: { path: { id: u.id } }, body: { role: select.value as Role } }),
          ),
        );
        return [
          u.email,
          u.name ?? "",
          select,
          u.id === me
            ? ""
            : h(
                "button",
                {
                  type: "button",
                  onclick: act(() => api.DELETE("/console/users/{id}", { params: { path: { id: u.id } } })),
                },
                `Quitar ${u.email}`,
              ),
        ];
      }),
    ),
    pendingTable(pending, act),
    h(
      "form",
      { class: "inline-form", onsubmit: invite, "aria-label": "Invitar" },
      field("Correo", email),
      field("Nombre (opcional)", name),
      field("Rol", role),
      h("button", { type: "submit", class: "primary" }, "Invitar"),
    ),
    status,
  );
}
