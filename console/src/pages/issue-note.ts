// The receipt an E33 or E34 modifies (#/emitir/34?ref=E31…): its buyer and date from its signed
// XML, what its accepted notes leave of it, and why the note being written would be refused.
import { api, sessionFetch } from "../api.ts";
import { h } from "../dom.ts";
import { day } from "../format.ts";
import { BALANCE_RULE, balanceOf, balanceText, notesOf, type ReceiptNotes, refusalText } from "./balance.ts";

export interface Original {
  encf: string;
  /** FechaEmision as dd-MM-yyyy (FechaNCFModificado). */
  fechaEmision: string;
  rnc: string;
  razon: string;
  /** Its total and the notes DGII accepted against it: its available balance. */
  notes: ReceiptNotes;
}

/** The receipt a note modifies: its buyer (from its signed XML) and the notes already accepted on it. */
export async function referenced(encf: string): Promise<Original> {
  const [{ data: r }, notes] = await Promise.all([
    api.GET("/fe/recepcion/ecf/{encf}", { params: { path: { encf } } }),
    notesOf(encf),
  ]);
  const xml = new DOMParser().parseFromString(await (await sessionFetch(r!.links.xml)).text(), "application/xml");
  const text = (name: string) => xml.getElementsByTagName(name)[0]?.textContent ?? "";
  return {
    encf,
    fechaEmision: day(r!.fechaEmision),
    rnc: text("RNCComprador"),
    razon: text("RazonSocialComprador"),
    notes,
  };
}

/** What the modified receipt still allows, and DGII's rule. */
export function balanceFacts(original: Original): HTMLElement[] {
  const text = balanceText(original.notes, balanceOf(original.notes));
  return [h("p", { class: "balance" }, `Sobre ${original.encf}: ${text}`), h("p", { class: "rule" }, BALANCE_RULE)];
}

/** Why the note being written would be refused by DGII's balance rule (a debit note never is). */
export function noteRefusal(tipo: string, original: Original, codigo: string, montoTotal: string): string | undefined {
  if (tipo !== "33" && tipo !== "34") return undefined;
  return refusalText(
    balanceOf(original.notes, { tipo, codigoModificacion: codigo as "1" | "2" | "3" | "4" | "5", montoTotal }),
  );
}

/** CodigoModificacion of a note: why it modifies the original. */
export function codigoSelect(): HTMLSelectElement {
  return h(
    "select",
    { name: "codigo" },
    h("option", { value: "3" }, "Corrige montos"),
    h("option", { value: "1" }, "Anula el comprobante"),
    h("option", { value: "2" }, "Corrige texto"),
    h("option", { value: "4" }, "Reemplazo por contingencia"),
    h("option", { value: "5" }, "Referencia a factura de consumo"),
  );
}
