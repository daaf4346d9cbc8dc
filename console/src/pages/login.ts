// Login with e-mail and password (POST /console/login); the session cookie comes back.
import { problemText } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import { login, type Session } from "../session.ts";

export async function loginPage(onLoggedIn: (session: Session) => void): Promise<HTMLElement> {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const error = h("p", { class: "error", role: "alert" });
  const submit = async (event: Event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      onLoggedIn(await login(email.value.trim(), password.value));
    } catch (e) {
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
      error,
      h("button", { type: "submit", class: "primary" }, "Entrar"),
    ),
  );
}
