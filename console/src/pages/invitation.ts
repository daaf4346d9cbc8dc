// An invitation link (#/invitacion/<token>): who invites whom to which company and role; the
// person sets a password (at least 10 characters) and is logged in. Someone who has a console user
// already gives its password, and its authenticator app's code when two-step verification is on.
import { problemText } from "@ecf/ui-kit";
import { field, h } from "../dom.ts";
import { acceptInvitation, ROLE_NOMBRE, readInvitation, type Session } from "../session.ts";

export async function invitationPage(token: string, onAccepted: (session: Session) => void): Promise<HTMLElement> {
  let invitation: Awaited<ReturnType<typeof readInvitation>>;
  try {
    invitation = await readInvitation(token);
  } catch (e) {
    const status = (e as { status?: number }).status;
    const text =
      status === 410
        ? "Esta invitación ya fue usada o venció. Pida una nueva a quien le invitó."
        : status === 404
          ? "Esta invitación no existe."
          : problemText(e);
    return h("main", { class: "card narrow" }, h("h1", {}, "Invitación"), h("p", { class: "error" }, text));
  }
  const name = h("input", { type: "text", name: "name", autocomplete: "name" });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    minlength: 10,
    required: true,
  });
  const totp = h("input", { name: "codigo-app", inputmode: "numeric", autocomplete: "one-time-code", maxlength: 7 });
  const totpField = field("Código de la aplicación de autenticación", totp);
  totpField.hidden = true;
  const error = h("p", { class: "error", role: "alert" });
  const submit = async (event: Event) => {
    event.preventDefault();
    error.textContent = "";
    if (password.value.length < 10) {
      error.textContent = "La contraseña debe tener al menos 10 caracteres.";
      return;
    }
    try {
      onAccepted(
        await acceptInvitation(token, password.value, name.value.trim() || undefined, totp.value.trim() || undefined),
      );
    } catch (e) {
      const codes = ((e as { errors?: { code: string }[] }).errors ?? []).map((x) => x.code);
      if (codes.includes("totp_required") || codes.includes("totp_invalid")) {
        totpField.hidden = false;
        totp.focus();
        error.textContent = codes.includes("totp_required")
          ? "Su usuario tiene la verificación en dos pasos activa: escriba el código de su aplicación de autenticación."
          : "El código de la aplicación no es válido o ya se usó: escriba el que la aplicación muestra ahora.";
        return;
      }
      error.textContent = problemText(e);
    }
  };
  return h(
    "main",
    { class: "card narrow" },
    h("h1", {}, "Aceptar la invitación"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Empresa"),
      h("dd", { class: "invitation-company" }, `${invitation.company.razonSocial} (${invitation.company.rnc})`),
      h("dt", {}, "Rol"),
      h("dd", { class: "invitation-role" }, ROLE_NOMBRE[invitation.role]),
      h("dt", {}, "Correo"),
      h("dd", {}, invitation.email),
    ),
    h(
      "form",
      { onsubmit: submit },
      field("Su nombre", name),
      field("Contraseña nueva", password, "Al menos 10 caracteres."),
      totpField,
      error,
      h("button", { type: "submit", class: "primary" }, "Aceptar y entrar"),
    ),
  );
}
