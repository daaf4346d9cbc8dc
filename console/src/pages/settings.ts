// Configuración: the company as the service knows it, the certificate (upload a renewed .p12),
// the e-NCF ranges, the totals policy, API keys, webhook endpoints (deliveries, redeliver), and the
// console's users (invite, change role, remove); and the user's own two-step verification.
import { api, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { day } from "../format.ts";
import type { Page } from "../page.ts";
import { may } from "../session.ts";
import { apiKeysSection } from "./api-keys.ts";
import { twoStepSection } from "./two-step.ts";
import { usersSection } from "./users.ts";
import { webhooksSection } from "./webhooks.ts";

export const settingsPage: Page = async (ctx) => {
  const owner = may(ctx.session.role, "settings");
  const { data: me } = await api.GET("/company/me");
  const sections = await Promise.all([
    sequencesSection(owner, ctx.reload),
    owner ? apiKeysSection() : null,
    owner ? webhooksSection(ctx.reload) : null,
    owner ? usersSection(ctx.session.user.id, ctx.reload) : null,
    twoStepSection(),
  ]);
  return h(
    "section",
    {},
    h("h1", {}, "Configuración"),
    h(
      "article",
      { class: "card" },
      h("h2", {}, "Empresa"),
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Razón social"),
        h("dd", {}, me!.name),
        h("dt", {}, "RNC"),
        h("dd", {}, me!.registryNumber),
        h("dt", {}, "Ambiente DGII"),
        h("dd", {}, me!.dgiiServer),
        h("dt", {}, "Política de totales"),
        h("dd", {}, POLICY_NOMBRE[me!.totalsPolicy]),
        h("dt", {}, "Límite mensual"),
        h("dd", {}, `${me!.invoicesCountCurrentMonth} de ${me!.invoiceLimitPerMonth}`),
      ),
    ),
    owner ? totalsPolicySection(me!.totalsPolicy, ctx.reload) : null,
    certificateSection(owner, me!.signatureName, me!.signatureExpirationDate, ctx.reload),
    ...sections,
  );
};

type TotalsPolicy = "strict" | "dgii";
const POLICY_NOMBRE: Record<TotalsPolicy, string> = {
  strict: "Estricta: se rechaza un total fuera de la tolerancia de la DGII",
  dgii: "Como la DGII: se emite con advertencia (aceptado condicional)",
};

/** The owner chooses what a total beyond DGII's tolerance is (PATCH /company/me). */
function totalsPolicySection(current: TotalsPolicy, reload: () => void): HTMLElement {
  const select = h(
    "select",
    { name: "politica-totales" },
    ...(["strict", "dgii"] as const).map((p) => h("option", { value: p, selected: p === current }, POLICY_NOMBRE[p])),
  );
  const status = statusLine();
  const save = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      await api.PATCH("/company/me", { body: { totalsPolicy: select.value as TotalsPolicy } });
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Política de totales"),
    h(
      "form",
      { class: "inline-form", onsubmit: save, "aria-label": "Política de totales" },
      field("Si un total excede la tolerancia", select),
      h("button", { type: "submit" }, "Guardar política"),
    ),
    status,
  );
}

function certificateSection(owner: boolean, name: string | null, expires: string | null, reload: () => void) {
  const file = h("input", { type: "file", name: "p12", accept: ".p12,.pfx", required: true });
  const password = h("input", { type: "password", name: "clave", autocomplete: "off", required: true });
  const status = statusLine();
  const upload = async (event: Event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    await reportingTo(status, async () => {
      const { data } = await api.PUT("/company/certificate", { body: { file: chosen, password: password.value } });
      status.textContent = `Certificado cargado: ${data!.name}, vence ${day(data!.notAfter)}.`;
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Certificado digital"),
    h("p", {}, name ? `${name}, vence ${day(expires)}.` : "No hay certificado cargado."),
    owner
      ? h(
          "form",
          { class: "inline-form", onsubmit: upload, "aria-label": "Cargar certificado" },
          field("Archivo .p12", file),
          field("Contraseña del certificado", password),
          h("button", { type: "submit" }, "Cargar"),
        )
      : null,
    status,
  );
}

async function sequencesSection(owner: boolean, reload: () => void): Promise<HTMLElement> {
  const { data } = await api.GET("/company/sequences");
  const tipo = h(
    "select",
    { name: "tipo" },
    ...["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"].map((t) => h("option", { value: t }, `E${t}`)),
  );
  const from = h("input", { name: "desde", inputmode: "numeric", required: true });
  const to = h("input", { name: "hasta", inputmode: "numeric", required: true });
  const expires = h("input", { name: "vence", type: "date", required: true });
  const status = statusLine();
  const save = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      await api.PUT("/company/sequences/{tipo}", {
        params: { path: { tipo: tipo.value as "31" } },
        body: { rangeFrom: Number(from.value), rangeTo: Number(to.value), expiresOn: expires.value },
      });
      reload();
    });
  };
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Secuencias autorizadas"),
    table(
      "Rangos de e-NCF",
      ["Tipo", "Desde", "Hasta", "Próximo", "Quedan", "Vence"],
      (data?.sequences ?? []).map((s) => [
        `E${s.tipoeCF}`,
        String(s.rangeFrom),
        String(s.rangeTo),
        s.nextEncf ?? "—",
        String(s.remaining),
        day(s.expiresOn),
      ]),
    ),
    owner
      ? h(
          "form",
          { class: "inline-form", onsubmit: save, "aria-label": "Registrar rango" },
          field("Tipo", tipo),
          field("Desde", from),
          field("Hasta", to),
          field("Vence", expires),
          h("button", { type: "submit" }, "Registrar rango"),
        )
      : null,
    status,
  );
}
