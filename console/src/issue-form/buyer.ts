// Who the invoice is for: the RNC or cédula (picked from the company's customers, or typed and
// looked up in DGII's taxpayer registry for the name), the name and an e-mail. What a type asks of
// the buyer is the obligation matrix's: the shared validation says it at these fields. Abroad
// (E46, E47) the buyer or beneficiary is named by a foreign tax id.
import { api } from "../api.ts";
import { field, h } from "../dom.ts";
import type { FieldErrors } from "./field-errors.ts";

const COMPRADOR = "/Encabezado/Comprador";

const ABROAD = new Set(["46", "47"]);
const RNC = /^\d{9}(\d{2})?$/;
const RNC_LABEL: Record<string, string> = {
  "32": "RNC o cédula del comprador (opcional)",
  "46": "Identificación fiscal del comprador en el exterior",
  "47": "Identificación fiscal del beneficiario en el exterior",
};

export interface BuyerForm {
  fields: HTMLElement[];
  rnc: HTMLInputElement;
  read(): Record<string, string> | undefined;
  bind(errors: FieldErrors): void;
}

/** The buyer's fields of an e-CF of `tipo` (an E43 has no buyer; an E41's is the seller). */
export function buyerForm(tipo: string, preset: { rnc: string; razon: string }, onFound: () => void): BuyerForm {
  const seller = tipo === "41";
  const rnc = h("input", {
    name: "rnc",
    inputmode: "numeric",
    value: preset.rnc,
    list: "clientes",
    autocomplete: "off",
  });
  const razon = h("input", { name: "razon", value: preset.razon });
  const correo = h("input", { name: "correo", type: "email" });
  const customers = h("datalist", { id: "clientes" });
  // A buyer chosen on the customers page (#/emitir/31?rnc=…) comes with its name and e-mail.
  void fillCustomers(customers).then(() => {
    if (preset.rnc && !preset.razon) void lookUp(preset.rnc, razon, correo, customers).then(onFound);
  });
  rnc.addEventListener("change", () => void lookUp(rnc.value.trim(), razon, correo, customers).then(onFound));
  const who = seller ? "del proveedor" : tipo === "47" ? "del beneficiario" : "del comprador";
  const rncLabel = RNC_LABEL[tipo] ?? `RNC ${who}`;
  const fields =
    tipo === "43"
      ? []
      : [
          field(
            rncLabel,
            rnc,
            ABROAD.has(tipo)
              ? "El número con que su país lo identifica."
              : "RNC de 9 dígitos o cédula de 11; elija un cliente o escríbalo.",
          ),
          customers,
          field(`Razón social ${who}`, razon, "Se completa del registro de contribuyentes."),
          field(`Correo ${who} (opcional)`, correo),
        ];
  const read = () => {
    if (tipo === "43") return undefined;
    const out: Record<string, string> = {};
    const id = rnc.value.trim();
    // Abroad (E46, E47) the buyer is named by a foreign tax id; an E46 to a local one by RNC.
    if (id) out[ABROAD.has(tipo) && !(tipo === "46" && RNC.test(id)) ? "IdentificadorExtranjero" : "RNCComprador"] = id;
    out.RazonSocialComprador = razon.value.trim() || (tipo === "32" ? "CONSUMIDOR FINAL" : "");
    if (!out.RazonSocialComprador) delete out.RazonSocialComprador;
    if (correo.value.trim()) out.CorreoComprador = correo.value.trim();
    return out;
  };
  const bind = (errors: FieldErrors) => {
    if (tipo === "43") return;
    errors.bind(rnc, COMPRADOR, `${COMPRADOR}/RNCComprador`, `${COMPRADOR}/IdentificadorExtranjero`);
    errors.bind(razon, `${COMPRADOR}/RazonSocialComprador`);
    errors.bind(correo, `${COMPRADOR}/CorreoComprador`);
  };
  return { fields, rnc, read, bind };
}

/** The company's customers as choices of the RNC field (their name shown beside). */
async function fillCustomers(list: HTMLDataListElement): Promise<void> {
  try {
    const { data } = await api.GET("/customers", {});
    list.replaceChildren(
      ...(data?.items ?? []).map((c) => h("option", { value: c.rnc, "data-email": c.email ?? "" }, c.name)),
    );
  } catch {
    // A role that may not read the customers types the RNC.
  }
}

/** The buyer's name (and e-mail) from the company's customers, else from DGII's taxpayer registry. */
async function lookUp(
  value: string,
  razon: HTMLInputElement,
  correo: HTMLInputElement,
  customers: HTMLDataListElement,
): Promise<void> {
  if (!RNC.test(value)) return;
  const option = [...customers.options].find((o) => o.value === value);
  if (option?.textContent) {
    razon.value = option.textContent;
    correo.value ||= option.dataset.email ?? "";
    return;
  }
  try {
    const { data } = await api.GET("/contribuyentes/{rnc}", { params: { path: { rnc: value } } });
    if (data) razon.value = data.legalName;
  } catch {
    // Not in the registry: the name is typed by hand.
  }
}
