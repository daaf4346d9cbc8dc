// Login with e-mail and password (POST /console/login); the session cookie comes back. After
// too many failed attempts from here the password alone is not enough: the page asks for the
// code the service e-mailed to the user. A user with two-step verification on is asked for its
// authenticator app's code as well.
import { problemText } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import { login, type Session } from "../session.ts";

const itemCodes = (e: unknown) => ((e as { errors?: { code: string }[] }).errors ?? []).map((x) => x.code);

export async function loginPage(onLoggedIn: (session: Session) => void): Promise<HTMLElement> {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const code = h("input", { name: "codigo", inputmode: "numeric", autocomplete: "one-time-code" });
  const codeField = field("Código enviado a su correo", code);
  codeField.hidden = true;
  const totp = h("input", { name: "codigo-app", inputmode: "numeric", autocomplete: "one-time-code", maxlength: 7 });
  const totpField = field("Código de la aplicación de autenticación", totp);
  totpField.hidden = true;
  const error = h("p", { class: "error", role: "alert" });
  const submit = async (event: Event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      onLoggedIn(
        await login(email.value.trim(), password.value, code.value.trim() || undefined, totp.value.trim() || undefined),
      );
    } catch (e) {
      error.textContent = failure(e, { code, codeField, totp, totpField });
    }
  };
  return h(
    "main",
    { class: "card narrow" },
    h("h1", {}, "Entrar a la consola"),
    h(
      "form",
      { onsubmit: submit },
      field("Correo electrónico", email),
      field("Contraseña", password),
      codeField,
      totpField,
      error,
      h("button", { type: "submit", class: "primary" }, "Entrar"),
    ),
  );
}

interface SecondFields {
  code: HTMLInputElement;
  codeField: HTMLElement;
  totp: HTMLInputElement;
  totpField: HTMLElement;
}

/** What the person reads of a refused sign-in, showing the field the next try needs. */
function failure(e: unknown, fields: SecondFields): string {
  const codes = itemCodes(e);
  if (codes.includes("totp_required") || codes.includes("totp_invalid")) {
    fields.totpField.hidden = false;
    fields.totp.focus();
    return codes.includes("totp_required")
      ? "Su usuario tiene la verificación en dos pasos activa: escriba el código de seis dígitos de su aplicación de autenticación."
      : "El código de la aplicación no es válido o ya se usó: escriba el que la aplicación muestra ahora.";
  }
  if (codes.includes("email_code_required")) {
    fields.codeField.hidden = false;
    // Unknown to the page whether this user has an app: the field is there for those who do.
    fields.totpField.hidden = false;
    return fields.code.value.trim()
      ? "El código no es válido o venció. Revise su correo o pida otro entrando sin código."
      : "Hubo varios intentos fallidos. Si su contraseña es correcta, le enviamos un código a su correo: escríbalo aquí (y, si activó la verificación en dos pasos, también el de su aplicación).";
  }
  return (e as { status?: number }).status === 401 ? "Correo o contraseña incorrectos." : problemText(e);
}
