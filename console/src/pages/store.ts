// Tienda: products (edit, CSV import with each bad line named), cashiers, tills (pair a new one
// with a code and a QR the till scans; an owner lets a manager's till receive the signing key;
// revoke) and shifts with their Z report.
import type { components } from "@ecf/client";
import { money } from "@ecf/ui-kit";
import { api, jsonOf, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { day, dayTime } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";
import { productsSection } from "./products.ts";

export const storePage: Page = async (ctx) => {
  const canEdit = may(ctx.session.role, "store");
  const [products, cashiers, tills, givenUp, shifts] = await Promise.all([
    productsSection(canEdit, ctx.reload),
    cashiersSection(canEdit, ctx.reload),
    tillsSection(canEdit, ctx.session.role === "owner", ctx.reload),
    // Voiding numbers at DGII is the books' act (owner, accountant), as under Emitir.
    may(ctx.session.role, "issue") ? givenUpSection(ctx.reload) : null,
    shiftsSection(),
  ]);
  return h("section", { class: "store" }, h("h1", {}, "Tienda"), products, cashiers, tills, givenUp, shifts);
};

async function cashiersSection(canEdit: boolean, reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/cashiers");
  const name = h("input", { name: "cajero", required: true });
  const pin = h("input", { name: "pin", inputmode: "numeric", autocomplete: "off", required: true });
  const status = statusLine();
  const create = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      await api.POST("/cashiers", { body: { name: name.value.trim(), pin: pin.value.trim() } as never });
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Cajeros"),
    table(
      "Cajeros",
      ["Nombre", "Activo"],
      (data?.cashiers ?? []).map((c) => [c.name, c.active ? "Sí" : "No"]),
    ),
    canEdit
      ? h(
          "form",
          { class: "inline-form", onsubmit: create, "aria-label": "Nuevo cajero" },
          field("Nombre", name),
          field("PIN (6 dígitos)", pin),
          h("button", { type: "submit" }, "Crear cajero"),
        )
      : null,
    status,
  );
}

type Till = components["schemas"]["Device"];

/** Whether the till holds the signing key, and for an owner the button that lets a manager's till receive it. */
function keyCell(d: Till, isOwner: boolean, approve: (id: string) => void): HTMLElement | string {
  if (d.status === "revoked") return "";
  if (d.keyApproval === "pending")
    return isOwner
      ? h("button", { type: "button", onclick: () => approve(d.id) }, `Aprobar la firma en ${d.name}`)
      : "Espera la aprobación del dueño";
  return d.keyHandedOverAt ? `Tiene la firma desde ${dayTime(d.keyHandedOverAt)}` : "Sin firma todavía";
}

async function tillsSection(canEdit: boolean, isOwner: boolean, reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/devices");
  const name = h("input", { name: "caja", required: true });
  const status = statusLine();
  const pairing = h("div", { class: "pairing-code", "aria-live": "polite" });
  const create = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      const { data: created } = await api.POST("/devices", { body: { name: name.value.trim() } });
      await showPairing(pairing, created!.pairingCode, created!.pairingExpiresAt);
    });
  };
  const revoke = async (id: string, label: string) => {
    if (!confirm(`¿Revocar la caja ${label}? Dejará de poder vender.`)) return;
    await reportingTo(status, async () => {
      await api.POST("/tills/{id}/revoke", { params: { path: { id } } });
      reload();
    });
  };
  const approve = async (id: string) => {
    await reportingTo(status, async () => {
      await api.POST("/tills/{id}/approve", { params: { path: { id } } });
      reload();
    });
  };
  const ESTADO: Record<string, string> = {
    waiting_pairing: "Esperando vincular",
    paired: "Vinculada",
    revoked: "Revocada",
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Cajas"),
    table(
      "Cajas",
      ["Nombre", "Estado", "Firma", "Vista por última vez", ""],
      (data?.devices ?? []).map((d) => [
        d.name,
        ESTADO[d.status] ?? d.status,
        keyCell(d, isOwner, (id) => void approve(id)),
        dayTime(d.lastSeenAt),
        canEdit && d.status !== "revoked"
          ? h("button", { type: "button", onclick: () => void revoke(d.id, d.name) }, `Revocar ${d.name}`)
          : "",
      ]),
    ),
    canEdit
      ? h(
          "form",
          { class: "inline-form", onsubmit: create, "aria-label": "Vincular una caja nueva" },
          field("Nombre de la caja", name),
          h("button", { type: "submit", class: "primary" }, "Vincular caja nueva"),
        )
      : null,
    pairing,
    status,
  );
}

/** Numbers a till took and never signed: an owner or accountant confirms before any goes to DGII as void. */
async function givenUpSection(reload: () => void): Promise<HTMLElement | null> {
  const { data } = await api.GET("/devices/given-up-proposals");
  const proposals = data?.proposals ?? [];
  if (!proposals.length) return null;
  const status = statusLine();
  const confirm = async () => {
    await reportingTo(status, async () => {
      await api.POST("/devices/given-up-proposals/confirm", { body: { ids: proposals.map((p) => p.id) } });
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Números que las cajas no usaron"),
    h("p", {}, "Las cajas tomaron estos números y no llegaron a firmarlos. Anúlelos en la DGII para no dejar huecos."),
    table(
      "Números que las cajas no usaron",
      ["Número", "Desde"],
      proposals.map((p) => [p.encf, dayTime(p.proposedAt)]),
    ),
    h("button", { type: "button", class: "primary", onclick: () => void confirm() }, "Anular en la DGII"),
    status,
  );
}

/** The one-time pairing code, large, and as a QR the till's camera reads (the POS takes the code). */
async function showPairing(box: HTMLElement, code: string, expiresAt: string): Promise<void> {
  const { toDataURL } = await import("qrcode");
  const qr = await toDataURL(code, { margin: 1, width: 220 });
  box.replaceChildren(
    h(
      "p",
      {},
      "Escriba este código en la caja nueva (o escanee el QR). Vale una sola vez hasta ",
      dayTime(expiresAt),
      ".",
    ),
    h("output", { id: "codigo-vinculacion", class: "code" }, code),
    h("img", { src: qr, alt: `Código QR de vinculación ${code}`, width: 220, height: 220 }),
  );
}

async function shiftsSection(): Promise<HTMLElement> {
  const data = jsonOf((await api.GET("/reports/turnos", { params: { query: { pageSize: "100" } } })).data);
  const rows = [...(data?.items ?? [])].reverse();
  const z = h("div", { class: "z-report", "aria-live": "polite" });
  const text = (v: string | number | null) => (v === null ? "—" : String(v));
  const showZ = (r: (typeof rows)[number]) => {
    const amounts: [string, string | number | null][] = [
      ["Fondo inicial", r.openingFloat],
      ["Ventas", r.salesTotal],
      ["ITBIS", r.itbisTotal],
      ["Devoluciones", r.refundsTotal],
      ["Efectivo", r.cash],
      ["Tarjeta", r.card],
      ["Transferencia", r.transfer],
      ["Efectivo esperado", r.expectedCash],
      ["Efectivo contado", r.countedCash],
      ["Diferencia", r.difference],
    ];
    z.replaceChildren(
      h("h3", {}, `Reporte Z: ${text(r.deviceName)}, ${text(r.cashierName)}, ${day(String(r.businessDay ?? ""))}`),
      h(
        "p",
        {},
        `${text(r.salesCount)} ventas, ${text(r.refundCount)} devoluciones · ` +
          `cerrado ${dayTime(String(r.closedAt ?? ""))}`,
      ),
      table(
        "Reporte Z",
        ["Concepto", "Monto"],
        amounts.map(([k, v]) => [k, v === null ? "—" : money(String(v))]),
      ),
    );
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Turnos"),
    table(
      "Turnos",
      ["Día", "Caja", "Cajero", "Estado", "Ventas", ""],
      rows.map((r) => [
        day(String(r.businessDay ?? "")),
        text(r.deviceName),
        text(r.cashierName),
        r.state === "closed" ? "Cerrado" : "Abierto",
        money(r.salesTotal === null ? null : String(r.salesTotal)),
        r.state === "closed"
          ? h("button", { type: "button", onclick: () => showZ(r) }, `Ver Z de ${text(r.deviceName)}`)
          : "",
      ]),
    ),
    z,
  );
}
