// Login with e-mail and password (POST /console/login); the session cookie comes back. After
// too many failed attempts from here the password alone is not enough: the page asks for the
// code the service e-mailed to the user.
import { problemText } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import { login, type Session } from "../session.ts";

const needsCode = (e: unknown) =>
  ((e as { errors?: { code: string }[] }).errors ?? []).some((x) => x.code === "email_code_required");

export async function loginPage(onLoggedIn: (session: Session) => void): Promise<HTMLElement> {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const code = h("input", { name: "codigo", inputmode: "numeric", autocomplete: "one-time-code" });
  const codeField = field("Código enviado a su correo", code);
  codeField.hidden = true;
  const error = h("p", { class: "error", role: "alert" });
  const submit = async (event: Event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      onLoggedIn(await login(email.value.trim(), password.value, code.value.trim() || undefined));
    } catch (e) {
      if (needsCode(e)) {
        codeField.hidden = false;
        error.textContent = code.value.trim()
          ? "El código no es válido o venció. Revise su correo o pida otro entrando sin código."
          : "Hubo varios intentos fallidos. Si su contraseña es correcta, le enviamos un código a su correo: escríbalo aquí.";
        return;
      }
      error.textContent =
        (e as { status?: number }).status === 401 ? "Correo o contraseña incorrectos." : problemText(e);
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
      error,
      h("button", { type: "submit", class: "primary" }, "Entrar"),
    ),
  );
}
