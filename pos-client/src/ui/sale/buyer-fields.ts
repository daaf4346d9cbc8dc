// The buyer: an RNC or cédula (it makes the sale an E31) and the name, filled from DGII's registry
// when online or from recent buyers, with a warning when the RNC's check digit is wrong or its holder
// is not active or not registered.
import { verifyRncOrCedula } from "@ecf/shared/ids";
import { type Component, h } from "@ecf/ui-kit";
import type { PosDatabase } from "../../db.ts";
import { type FindTaxpayer, inactiveWarning, isRegistryId, lookupBuyer } from "../../sale/buyers.ts";
import type { SaleScreenState } from "../../sale/draft.ts";

export interface BuyerFields extends Component {
  /** Looks the RNC up again (back on the screen with an RNC typed, its warning shows again). */
  refill(): Promise<void>;
}

export interface BuyerOptions {
  findTaxpayer?: FindTaxpayer;
  /** Told when the RNC changes (the type of the sale with it) ... */
  rncChanged: () => void;
  /** ... and when the name does. */
  nameChanged: () => void;
}

const rncWarning = (rnc: string) => {
  const v = rnc ? verifyRncOrCedula(rnc) : null;
  return v && !v.ok && v.reason === "check_digit" ? "Advertencia: el dígito verificador no coincide." : "";
};

export function buyerFields(db: PosDatabase, state: SaleScreenState, options: BuyerOptions): BuyerFields {
  const rnc = h("input", {
    id: "buyer-rnc",
    inputmode: "numeric",
    placeholder: "RNC o cédula (opcional: E31)",
    value: state.rnc,
    maxlength: 11,
    autocomplete: "off",
  });
  const buyerName = h("input", {
    id: "buyer-name",
    placeholder: "Nombre o razón social",
    value: state.buyerName,
    maxlength: 150,
    autocomplete: "off",
  });
  const buyerStatus = h("small", { class: "warn", id: "buyer-status", role: "status" });
  // The name last filled from an RNC: replaced by the next lookup, unlike a name the cashier typed.
  let filledName = "";
  let lookups = 0;
  const fillBuyer = async () => {
    const typed = state.rnc;
    const ticket = ++lookups;
    buyerStatus.textContent = "";
    // A name filled for another RNC is not this buyer's; a name the cashier typed stays.
    if (filledName && state.buyerName === filledName) buyerName.value = state.buyerName = filledName = "";
    if (!isRegistryId(typed)) return;
    const online = typeof navigator === "undefined" || navigator.onLine;
    const found = await lookupBuyer(db, typed, online ? options.findTaxpayer : undefined);
    // The cashier kept typing: this answer is for an RNC no longer there.
    if (ticket !== lookups || state.rnc !== typed) return;
    if (found.kind === "found") {
      if (!state.buyerName.trim() || state.buyerName === filledName) {
        buyerName.value = state.buyerName = filledName = found.buyer.name;
      }
      buyerStatus.textContent = inactiveWarning(found.buyer);
    } else if (found.kind === "not-found") {
      buyerStatus.textContent = "El RNC no figura en el registro de contribuyentes de la DGII: escriba el nombre.";
    }
  };
  rnc.addEventListener("input", () => {
    state.rnc = rnc.value.trim();
    options.rncChanged();
    void fillBuyer();
  });
  buyerName.addEventListener("input", () => {
    state.buyerName = buyerName.value;
    options.nameChanged();
  });
  const warn = h("small", { class: "warn", id: "rnc-warning" }, rncWarning(state.rnc));
  rnc.addEventListener("input", () => (warn.textContent = rncWarning(state.rnc)));
  return {
    element: h("fieldset", { class: "buyer" }, h("legend", {}, "Cliente"), rnc, warn, buyerName, buyerStatus),
    refill: fillBuyer,
  };
}
