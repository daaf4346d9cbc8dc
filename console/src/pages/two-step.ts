// Verificación en dos pasos (GET/POST /console/totp*): owners and accountants turn on an
// authenticator app's code at sign-in. The secret is shown once, grouped for typing, as a link
// and as a QR; a code from the app confirms it; the code or the password turns it off.
import { ProblemError } from "@ecf/client";
import { problemText } from "@ecf/ui-kit";
import { api } from "../api.ts";
import { field, h, statusLine } from "../dom.ts";

type Status = "off" | "pending" | "active";

/** The failure in Spanish words only: the problem's own Spanish detail, never a path. */
const inSpanish = (e: unknown) => (e instanceof ProblemError && e.detailEs ? e.detailEs : problemText(e));

/** The secret in groups of four, as it is typed into an app by hand. */
export const groupedSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, "$1 ");

const codeInput = (name: string) =>
  h("input", { name, inputmode: "numeric", autocomplete: "one-time-code", maxlength: 7, pattern: "\\d{3} ?\\d{3}" });

/** The section, or null for a user whose role does not turn it on and who has it off. */
export async function twoStepSection(): Promise<HTMLElement | null> {
  const { data } = await api.GET("/console/totp");
  if (!data || (!data.mayEnrol && data.status === "off")) return null;
  const body = h("div", {});
  const card = h("article", { class: "card" }, h("h2", {}, "Verificación en dos pasos"), body);
  const show = (status: Status) => body.replaceChildren(status === "active" ? activeView(show) : offView(show, status));
  show(data.status);
  return card;
}

function offView(show: (status: Status) => void, status: Status): HTMLElement {
  const line = statusLine();
  const setup = h("div", { class: "two-step-setup" });
  const start = async () => {
    line.textContent = "";
    try {
      const { data } = await api.POST("/console/totp/enrolment");
      await showSecret(setup, data!.secret, data!.otpauthUri, show);
    } catch (e) {
      line.textContent = inSpanish(e);
    }
  };
  return h(
    "div",
    {},
    h(
      "p",
      {},
      "Está desactivada: para entrar basta la contraseña. Actívela para que, además, se pida el código de seis dígitos de una aplicación de autenticación en su teléfono (Google Authenticator, Microsoft Authenticator, FreeOTP u otra).",
    ),
    status === "pending"
      ? h("p", {}, "Hay una activación sin confirmar: empiécela de nuevo para ver una clave nueva.")
      : null,
    h(
      "button",
      { type: "button", class: "primary", onclick: () => void start() },
      "Activar la verificación en dos pasos",
    ),
    setup,
    line,
  );
}

/** The new secret (typed, linked, scanned) and the form that confirms it with the app's first code. */
async function showSecret(box: HTMLElement, secret: string, uri: string, show: (status: Status) => void) {
  const { toDataURL } = await import("qrcode");
  const qr = await toDataURL(uri, { margin: 1, width: 220 });
  const code = codeInput("codigo-confirmacion");
  code.required = true;
  const status = statusLine();
  const confirm = async (event: Event) => {
    event.preventDefault();
    try {
      await api.POST("/console/totp/confirmation", { body: { code: code.value.trim() } });
      show("active");
    } catch (e) {
      status.textContent = inSpanish(e);
    }
  };
  box.replaceChildren(
    h(
      "p",
      {},
      "Escanee el código QR con su aplicación de autenticación, o escriba esta clave en ella. Se muestra solo esta vez.",
    ),
    h(
      "output",
      { id: "clave-dos-pasos", class: "code", "aria-label": "Clave para la aplicación" },
      groupedSecret(secret),
    ),
    h("img", { src: qr, alt: "Código QR de la clave para la aplicación de autenticación", width: 220, height: 220 }),
    h("p", {}, h("a", { href: uri }, "Abrir en la aplicación de autenticación de este dispositivo")),
    h(
      "form",
      { class: "inline-form", onsubmit: confirm, "aria-label": "Confirmar la verificación en dos pasos" },
      field("Código de la aplicación de autenticación", code, "Los seis dígitos que la aplicación muestra ahora"),
      h("button", { type: "submit" }, "Confirmar y activar"),
    ),
    status,
  );
  code.focus();
}

function activeView(show: (status: Status) => void): HTMLElement {
  const code = codeInput("codigo-desactivar");
  const password = h("input", { type: "password", name: "clave-desactivar", autocomplete: "current-password" });
  const status = statusLine();
  const disable = async (event: Event) => {
    event.preventDefault();
    const typed = code.value.trim();
    const body = typed ? { code: typed } : { password: password.value };
    if (!typed && !password.value) {
      status.textContent = "Escriba el código de la aplicación o su contraseña.";
      return;
    }
    try {
      await api.POST("/console/totp/disable", { body });
      show("off");
    } catch (e) {
      status.textContent = inSpanish(e);
    }
  };
  return h(
    "div",
    {},
    h(
      "p",
      { class: "two-step-active" },
      "Está activa: al entrar a la consola se pide el código de su aplicación de autenticación, además de la contraseña.",
    ),
    h(
      "form",
      { class: "inline-form", onsubmit: disable, "aria-label": "Desactivar la verificación en dos pasos" },
      field("Código de la aplicación de autenticación", code),
      field("O su contraseña", password),
      h("button", { type: "submit" }, "Desactivar"),
    ),
    status,
  );
}
