// Certificación (owner only): the company's DGII certification, step by step. Without a run, a
// form to start it (the representative who signs, the e-CF types, how the company applies); with
// one, DGII's 14 steps with their state and, for the person's steps, what to do in DGII's portal,
// the signed documents to download, and the verdicts to record or read from the sandbox's portal.
import type { components } from "@ecf/client";
import { ProblemError } from "@ecf/client";
import { api, download, reportingTo } from "../api.ts";
import { field, h, statusLine, table } from "../dom.ts";
import { dayTime, TIPO_NOMBRE } from "../format.ts";
import type { PageContext } from "../page.ts";
import { receiverCheckCard } from "./receiver-check.ts";

type Run = components["schemas"]["CertificationRun"];
type Start = components["schemas"]["CertificationStart"];
type Step = Run["steps"][number];

const STATE: Record<Step["state"], string> = { pending: "Pendiente", completed: "Completado", skipped: "No aplica" };
const ACTOR: Record<Step["actor"], string> = {
  service: "Este servicio",
  person: "Usted, en el portal de la DGII",
  dgii: "La DGII",
};
const APPLICANT: Record<Start["applicant"], string> = {
  taxpayer: "Contribuyente, por su cuenta (camino completo)",
  provider: "Proveedor de servicios que se certifica (camino completo)",
  "provider-client": "Cliente de un proveedor certificado (camino corto)",
};

function startForm(reload: () => void): HTMLElement {
  const status = statusLine();
  const cedula = h("input", { name: "cedula", inputmode: "numeric", maxlength: "11", required: true });
  const name = h("input", { name: "nombre", required: true });
  const applicant = h(
    "select",
    { name: "postulante" },
    ...Object.entries(APPLICANT).map(([value, label]) => h("option", { value }, label)),
  );
  const provider = h("input", { name: "proveedor", inputmode: "numeric", maxlength: "11" });
  const types = Object.entries(TIPO_NOMBRE).map(([tipo, label]) =>
    h(
      "label",
      { class: "inline" },
      h("input", { type: "checkbox", name: "tipos", value: tipo, checked: tipo === "31" || tipo === "32" }),
      ` ${label}`,
    ),
  );
  const submit = async (event: Event) => {
    event.preventDefault();
    await reportingTo(status, async () => {
      const chosen = types
        .map((t) => t.querySelector("input")!)
        .filter((i) => i.checked)
        .map((i) => i.value);
      const kind = (applicant as HTMLSelectElement).value as Start["applicant"];
      const body: Start = {
        representative: {
          cedula: (cedula as HTMLInputElement).value.trim(),
          name: (name as HTMLInputElement).value.trim(),
        },
        ecfTypes: chosen as Start["ecfTypes"],
        applicant: kind,
        ...(kind === "provider-client" ? { providerRnc: (provider as HTMLInputElement).value.trim() } : {}),
      };
      await api.PUT("/company/certification", { body });
      reload();
    });
  };
  return h(
    "form",
    { class: "card", onsubmit: submit },
    h("h2", {}, "Iniciar la certificación"),
    h(
      "p",
      {},
      "La DGII comprueba que la postulación y la declaración jurada las firma el representante registrado de la empresa: suba antes su certificado digital.",
    ),
    field("Cédula del representante", cedula, "11 dígitos, sin guiones"),
    field("Nombre del representante", name),
    field("Cómo se postula", applicant),
    field("RNC del proveedor certificado", provider, "Solo si es cliente de un proveedor"),
    h("fieldset", {}, h("legend", {}, "Tipos de comprobante que emitirá"), ...types),
    h("button", { type: "submit", class: "primary" }, "Iniciar"),
    status,
  );
}

function stepsTable(run: Run): HTMLElement {
  return table(
    "Pasos de la certificación",
    ["Paso", "Quién", "Estado", "Qué hacer / qué dijo la DGII"],
    run.steps.map((step) => [
      `${step.number}. ${step.name}`,
      ACTOR[step.actor],
      h(
        "span",
        { class: step.state === "completed" ? "badge ok" : step.state === "skipped" ? "badge" : "badge wait" },
        STATE[step.state],
      ),
      h(
        "div",
        {},
        step.state === "pending" && step.act ? h("p", {}, step.act.es) : "",
        step.detail ? h("p", {}, step.detail) : "",
        step.completedAt ? h("small", {}, dayTime(step.completedAt)) : "",
      ),
    ]),
  );
}

/** Step 5's file: the simulation invoices' printed copies, named by their e-NCF, in one PDF. */
function printedCopiesForm(): HTMLElement {
  const status = statusLine();
  const encfs = h("input", { name: "encf", placeholder: "E310000000101, E320000000101" });
  const submit = (event: Event) => {
    event.preventDefault();
    const list = (encfs as HTMLInputElement).value.toUpperCase().match(/E\d{12}/g) ?? [];
    return reportingTo(status, () =>
      download(
        `/company/certification/printed-copies?encf=${list.join(",")}`,
        "representaciones-impresas.pdf",
        "application/pdf",
      ),
    );
  };
  return h(
    "form",
    { class: "card", onsubmit: submit },
    h("h2", {}, "Representaciones impresas de la simulación"),
    field("e-NCF de las facturas de la simulación", encfs, "Separados por comas; se arma un solo PDF para la DGII"),
    h("button", { type: "submit" }, "Descargar representaciones impresas"),
    status,
  );
}

function runView(run: Run, reload: () => void): HTMLElement {
  const status = statusLine();
  const act = (work: () => Promise<unknown>) => () => reportingTo(status, async () => (await work(), reload()));
  const current = run.currentStep;
  return h(
    "div",
    {},
    h(
      "article",
      { class: "card" },
      h("h2", {}, run.certified ? "Certificación terminada" : `Paso en curso: ${current!.number}. ${current!.name}`),
      h(
        "p",
        {},
        `Representante: ${run.representative.name} (cédula ${run.representative.cedula}). ${APPLICANT[run.applicant]}.`,
      ),
      h(
        "p",
        {},
        `Direcciones que registrará en la DGII: recepción ${run.receiverUrls.recepcion}; aprobación comercial ${run.receiverUrls.aprobacionComercial}; autenticación ${run.receiverUrls.autenticacion}.`,
      ),
      run.dgiiTarget === "sandbox"
        ? h(
            "p",
            { class: "warn" },
            "Este servicio trabaja con el sandbox local de la DGII: ningún paso se ha hecho con la DGII real.",
          )
        : "",
      h(
        "button",
        {
          type: "button",
          onclick: () => reportingTo(status, () => download("/company/certification/postulacion", "postulacion.xml")),
        },
        "Descargar postulación",
      ),
      h(
        "button",
        {
          type: "button",
          onclick: () =>
            reportingTo(status, () => download("/company/certification/declaracion", "declaracion-jurada.xml")),
        },
        "Descargar declaración jurada",
      ),
      run.dgiiTarget === "sandbox"
        ? h(
            "button",
            { type: "button", onclick: act(() => api.POST("/company/certification/sync")) },
            "Leer el portal de la DGII",
          )
        : "",
      current && run.steps.find((s) => s.id === current.id)?.actor !== "service"
        ? h(
            "button",
            {
              type: "button",
              class: "primary",
              onclick: act(() =>
                api.POST("/company/certification/steps/{step}", { params: { path: { step: current.id } }, body: {} }),
              ),
            },
            `La DGII completó el paso ${current.number}`,
          )
        : "",
      status,
    ),
    printedCopiesForm(),
    receiverCheckCard(),
    stepsTable(run),
  );
}

export async function certificationPage(ctx: PageContext): Promise<HTMLElement> {
  if (ctx.session.role !== "owner")
    return h("p", { role: "alert" }, "Solo el propietario de la empresa ve la certificación.");
  const heading = h("h1", {}, "Certificación");
  try {
    const { data } = await api.GET("/company/certification");
    return h("section", {}, heading, runView(data!, ctx.reload));
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404) return h("section", {}, heading, startForm(ctx.reload));
    throw error;
  }
}
