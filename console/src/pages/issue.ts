// Issuing by hand: an E31 or E32 (the buyer's name from the taxpayer registry), or an E33/E34 on
// an accepted receipt (#/emitir/34?ref=E31…), with what the original still allows shown.
import { computeTotals } from "@ecf/shared/totals";
import { money } from "@ecf/ui-kit";
import { api, sessionFetch, reportingTo } from "../api.ts";
import { field, h, statusLine } from "../dom.ts";
import { day, TIPO_NOMBRE } from "../format.ts";
import type { Page } from "../page.ts";
import { go } from "../router.ts";
import { BALANCE_RULE, balanceOf, balanceText, notesOf, type ReceiptNotes, refusalText } from "./balance.ts";

interface LineInputs {
  name: HTMLInputElement;
  qty: HTMLInputElement;
  price: HTMLInputElement;
  itbis: HTMLSelectElement;
  kind: HTMLSelectElement;
  row: HTMLElement;
}

const DECIMAL = /^\d+(\.\d{1,2})?$/;

export const issuePage: Page = async (ctx) => {
  const tipo = ctx.route.params[0] ?? "31";
  if (!["31", "32", "33", "34"].includes(tipo)) return h("p", {}, "Ese tipo no se emite desde la consola.");
  const ref = ctx.route.query.get("ref");
  const original = ref ? await referenced(ref) : undefined;
  const rnc = h("input", { name: "rnc", inputmode: "numeric", value: original?.rnc ?? "" });
  const razon = h("input", { name: "razon", value: original?.razon ?? "" });
  const correo = h("input", { name: "correo", type: "email" });
  const codigo = codigoSelect();
  rnc.addEventListener("change", () => void registryName(rnc.value.trim(), razon));
  const lines: LineInputs[] = [];
  const linesBox = h("div", { class: "lines" });
  const total = h("p", { class: "total", "aria-live": "polite" });
  const check = h("p", { class: "balance-check warn", "aria-live": "polite" });
  const status = statusLine();
  const addLine = () => {
    const line = newLine(lines.length + 1);
    line.row.addEventListener("input", () => preview());
    lines.push(line);
    linesBox.append(line.row);
  };
  const documentOf = () => build(tipo, { rnc, razon, correo, codigo }, lines, original);
  const preview = () => {
    try {
      const t = computeTotals(documentOf()).Totales;
      total.textContent = `Total: ${money(t.MontoTotal)} (ITBIS ${money(t.TotalITBIS ?? "0")})`;
      check.textContent = original ? (noteRefusal(tipo, original, codigo.value, t.MontoTotal) ?? "") : "";
    } catch {
      total.textContent = "";
      check.textContent = "";
    }
  };
  addLine();
  codigo.addEventListener("change", () => preview());
  const submit = async (event: Event) => {
    event.preventDefault();
    const bad = lines.find((l) => !l.name.value.trim() || !DECIMAL.test(l.qty.value) || !DECIMAL.test(l.price.value));
    if (bad) {
      status.textContent = "Cada línea necesita descripción, cantidad y precio (hasta 2 decimales).";
      bad.name.focus();
      return;
    }
    status.textContent = "Enviando a la DGII…";
    await reportingTo(status, async () => {
      const { data, error } = await api.POST("/fe/recepcion/ecf", { body: documentOf() as never });
      const answer = data ?? (error as { encf?: string } | undefined);
      if (answer?.encf) go(`#/comprobantes/${answer.encf}`);
    });
  };
  return h(
    "section",
    {},
    h("h1", {}, `Emitir E${tipo} ${TIPO_NOMBRE[tipo]}`),
    ...(original ? balanceFacts(original) : []),
    h(
      "form",
      { onsubmit: submit, class: "issue" },
      field(tipo === "32" ? "RNC o cédula del comprador (opcional)" : "RNC del comprador", rnc),
      field("Razón social del comprador", razon, "Se completa del registro de contribuyentes."),
      field("Correo del comprador (opcional)", correo),
      original ? field("Código de modificación", codigo) : null,
      linesBox,
      h("button", { type: "button", onclick: addLine }, "Agregar línea"),
      total,
      check,
      status,
      h("button", { type: "submit", class: "primary" }, "Emitir"),
    ),
  );
};

/** The buyer's name from DGII's taxpayer registry, when the RNC or cédula is there. */
async function registryName(value: string, razon: HTMLInputElement): Promise<void> {
  if (!/^\d{9}(\d{2})?$/.test(value)) return;
  try {
    const { data } = await api.GET("/contribuyentes/{rnc}", { params: { path: { rnc: value } } });
    if (data) razon.value = data.legalName;
  } catch {
    // Not in the registry: the name is typed by hand.
  }
}

/** CodigoModificacion of a note: why it modifies the original. */
function codigoSelect(): HTMLSelectElement {
  return h(
    "select",
    { name: "codigo" },
    h("option", { value: "3" }, "3 Corrige montos"),
    h("option", { value: "1" }, "1 Anula el comprobante"),
    h("option", { value: "2" }, "2 Corrige texto"),
    h("option", { value: "4" }, "4 Reemplazo por contingencia"),
    h("option", { value: "5" }, "5 Referencia a factura de consumo"),
  );
}

/** One detail line's inputs (description, quantity, unit price, tax, good or service). */
function newLine(n: number): LineInputs {
  const inputs = {
    name: h("input", { name: `nombre-${n}`, required: true }),
    qty: h("input", { name: `cantidad-${n}`, inputmode: "decimal", value: "1" }),
    price: h("input", { name: `precio-${n}`, inputmode: "decimal" }),
    itbis: h(
      "select",
      { name: `itbis-${n}` },
      h("option", { value: "1" }, "ITBIS 18 %"),
      h("option", { value: "2" }, "ITBIS 16 %"),
      h("option", { value: "4" }, "Exento"),
    ),
    kind: h(
      "select",
      { name: `tipo-${n}` },
      h("option", { value: "1" }, "Bien"),
      h("option", { value: "2" }, "Servicio"),
    ),
  };
  const row = h(
    "fieldset",
    { class: "line" },
    h("legend", {}, `Línea ${n}`),
    field("Descripción", inputs.name),
    field("Cantidad", inputs.qty),
    field("Precio unitario", inputs.price),
    field("Impuesto", inputs.itbis),
    field("Tipo", inputs.kind),
  );
  return { ...inputs, row };
}

interface Original {
  encf: string;
  /** FechaEmision as dd-MM-yyyy (FechaNCFModificado). */
  fechaEmision: string;
  rnc: string;
  razon: string;
  /** Its total and the notes DGII accepted against it: its available balance. */
  notes: ReceiptNotes;
}

/** The receipt a note modifies: its buyer (from its signed XML) and the notes already accepted on it. */
async function referenced(encf: string): Promise<Original> {
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
function balanceFacts(original: Original): HTMLElement[] {
  const text = balanceText(original.notes, balanceOf(original.notes));
  return [h("p", { class: "balance" }, `Sobre ${original.encf}: ${text}`), h("p", { class: "rule" }, BALANCE_RULE)];
}

/** Why the note being written would be refused by DGII's balance rule (a debit note never is). */
function noteRefusal(tipo: string, original: Original, codigo: string, montoTotal: string): string | undefined {
  if (tipo !== "33" && tipo !== "34") return undefined;
  return refusalText(
    balanceOf(original.notes, { tipo, codigoModificacion: codigo as "1" | "2" | "3" | "4" | "5", montoTotal }),
  );
}

function build(
  tipo: string,
  buyer: { rnc: HTMLInputElement; razon: HTMLInputElement; correo: HTMLInputElement; codigo: HTMLSelectElement },
  lines: LineInputs[],
  original: Original | undefined,
): Record<string, unknown> {
  const comprador: Record<string, string> = {};
  if (buyer.rnc.value.trim()) comprador.RNCComprador = buyer.rnc.value.trim();
  comprador.RazonSocialComprador = buyer.razon.value.trim() || "CONSUMIDOR FINAL";
  if (buyer.correo.value.trim()) comprador.CorreoComprador = buyer.correo.value.trim();
  const items = lines.map((l) => ({
    IndicadorFacturacion: l.itbis.value,
    NombreItem: l.name.value.trim(),
    IndicadorBienoServicio: l.kind.value,
    CantidadItem: l.qty.value.trim(),
    UnidadMedida: "43",
    PrecioUnitarioItem: l.price.value.trim(),
  }));
  const idDoc: Record<string, unknown> = {
    TipoeCF: tipo,
    IndicadorMontoGravado: "0",
    TipoIngresos: "01",
    TipoPago: "1",
  };
  const doc: Record<string, unknown> = { Encabezado: { IdDoc: idDoc, Comprador: comprador }, DetallesItems: items };
  if (original)
    doc.InformacionReferencia = {
      NCFModificado: original.encf,
      FechaNCFModificado: original.fechaEmision,
      CodigoModificacion: buyer.codigo.value,
    };
  else idDoc.TablaFormasPago = [{ FormaPago: "1", MontoPago: computeTotals(doc).Totales.MontoTotal }];
  return doc;
}
