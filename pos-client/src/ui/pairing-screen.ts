// Pairing: a device with no identity (or one the company revoked) asks for the one-time code the
// company's administrator generated, and becomes a till of that company.
import { h } from "@ecf/ui-kit";
import type { PosDatabase } from "../db.ts";
import { pairDevice, type Session } from "../session.ts";
import { pairingFailure } from "./pairing-messages.ts";

/** Shows the pairing form in `root`; `paired` starts the till once the code was accepted. */
export async function showPairing(
  root: HTMLElement,
  db: PosDatabase,
  paired: (session: Session) => void,
  notice?: string,
): Promise<void> {
  const revoked =
    notice ??
    ((await db.setting<boolean>("revoked"))
      ? "Este dispositivo fue revocado y su clave de firma se eliminó. Vincúlelo de nuevo."
      : "");
  const code = h("input", {
    id: "pairing-code",
    placeholder: "XXXX-XXXX",
    autocomplete: "off",
    autocapitalize: "characters",
    maxlength: 9,
    required: true,
    "aria-label": "Código de vinculación",
  });
  const error = h("p", { class: "error", role: "alert", id: "pairing-error" }, revoked);
  const button = h("button", { type: "submit", class: "primary big" }, "Vincular");
  const form = h(
    "form",
    { class: "pairing", id: "pairing" },
    h("h1", {}, "Vincular este punto de venta"),
    h("p", {}, "Escriba el código de vinculación que generó el administrador de la empresa."),
    code,
    button,
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    button.disabled = true;
    try {
      const session = await pairDevice(db, code.value);
      await db.settings.delete("revoked");
      paired(session);
    } catch (e) {
      error.textContent = pairingFailure(e, navigator.onLine);
    } finally {
      button.disabled = false;
    }
  });
  root.replaceChildren(form);
  code.focus();
}
