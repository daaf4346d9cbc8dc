// The receiver self-test on the Certificación page: one button that has the worker call the
// company's receiver addresses as DGII will (POST /company/certification/receiver-check), and a
// table of each check in words, with what a public deployment must offer where one fails.
import type { components } from "@ecf/client";
import { api, reportingTo } from "../api.ts";
import { h, statusLine, table } from "../dom.ts";

type Check = components["schemas"]["ReceiverCheck"]["checks"][number];

const CHECK_NAME: Record<Check["id"], string> = {
  semilla: "Autenticación: entrega la semilla",
  "validacion-certificado": "Autenticación: cambia la semilla firmada por un token",
  recepcion: "Recepción de comprobantes: responde el acuse de recibo firmado",
  "aprobacion-comercial": "Recepción de aprobaciones comerciales",
  mayusculas: "Responde aunque la dirección lleve mayúsculas",
};

function checksTable(checks: Check[]): HTMLElement {
  return table(
    "Prueba del receptor",
    ["Prueba", "Resultado", "Qué debe ofrecer su despliegue"],
    checks.map((check) => [
      CHECK_NAME[check.id],
      h("span", { class: check.ok ? "badge ok" : "badge wait" }, check.ok ? "Correcto" : "Falló"),
      check.ok ? "" : check.requirement.es,
    ]),
  );
}

/** The button and, once pressed, the answer in its place. */
export function receiverCheckCard(): HTMLElement {
  const status = statusLine();
  const result = h("div", {});
  const run = () =>
    reportingTo(status, async () => {
      const { data } = await api.POST("/company/certification/receiver-check");
      result.replaceChildren(
        h(
          "p",
          {},
          data!.ok
            ? "Su receptor responde todo lo que la DGII le pedirá."
            : "Su receptor no responde todo lo que la DGII le pedirá: vea qué falta.",
        ),
        checksTable(data!.checks),
      );
    });
  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Probar el receptor"),
    h(
      "p",
      {},
      "Este servicio llama a sus direcciones de recepción, aprobación comercial y autenticación como lo hará la DGII, sin registrar nada.",
    ),
    h("button", { type: "button", onclick: run }, "Probar mi receptor"),
    status,
    result,
  );
}
