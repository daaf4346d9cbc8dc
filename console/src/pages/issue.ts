// Issuing by hand: each type the company has a sequence for (E31, E32, E41, E43, E44, E45, E46, E47; an
// E33/E34 on an accepted receipt, #/emitir/34?ref=E31…, with what the original still allows
// shown), with payment terms, per-line ITBIS, discount and surcharge. The shared validation runs
// as the owner types and every problem, the API's too, is shown at its field in Spanish words.
import { ProblemError } from "@ecf/client";
import { computeTotals } from "@ecf/shared/totals";
import { money } from "@ecf/ui-kit";
import { api } from "../api.ts";
import { field, h, statusLine } from "../dom.ts";
import { TIPO_NOMBRE } from "../format.ts";
import { abroadForm } from "../issue-form/abroad.ts";
import { buyerForm } from "../issue-form/buyer.ts";
import { type CheckContext, problemsOf } from "../issue-form/check.ts";
import { FieldErrors, type FieldProblem } from "../issue-form/field-errors.ts";
import { linesEditor } from "../issue-form/lines.ts";
import { paymentForm } from "../issue-form/payment.ts";
import type { Page } from "../page.ts";
import { go } from "../router.ts";
import { FORCED_INDICADOR } from "@ecf/shared/ecf-rules";
import { balanceFacts, codigoSelect, noteRefusal, type Original, referenced } from "./issue-note.ts";

/** The types an owner issues by hand. */
export const HAND_TYPES = ["31", "32", "41", "43", "44", "45", "46", "47"];
const NOTE_TYPES = ["33", "34"];
/** The types without TipoIngresos (purchases and payments abroad). */
const NO_INCOME = new Set(["41", "43", "47"]);
/** The types whose lines carry no ITBIS to include in a price (IndicadorMontoGravado is not sent). */
const NO_ITBIS = new Set(["46", "47"]);
/** The rate a type forces on its lines, offered fixed (an export is 0 %, a payment abroad exempt). */
const FIXED_RATE: Record<string, string | undefined> = { "46": FORCED_INDICADOR["46"], "47": FORCED_INDICADOR["47"] };

export const issuePage: Page = async (ctx) => {
  const tipo = ctx.route.params[0] ?? "31";
  if (![...HAND_TYPES, ...NOTE_TYPES].includes(tipo)) return h("p", {}, "Ese tipo no se emite desde la consola.");
  const data = await issueData(tipo, ctx.route.query.get("ref"));
  if (!data) return unauthorised(tipo);
  const { original, sequences, sequence, catalog } = data;
  const check: CheckContext = { tipo, rnc: ctx.session.company?.rnc ?? "", ...sequence };
  const errors = new FieldErrors();
  const status = statusLine();
  const total = h("p", { class: "total", "aria-live": "polite" });
  const balance = h("p", { class: "balance-check warn", "aria-live": "polite" });
  const included = h("input", { type: "checkbox", name: "con-itbis" });
  const codigo = codigoSelect();
  const preset = original ?? { rnc: ctx.route.query.get("rnc") ?? "", razon: "" };
  const buyer = buyerForm(tipo, preset, () => void recheck());
  const payment = paymentForm();
  // A product's price with ITBIS makes the invoice's prices so (DGII's indicator is per document).
  const abroad = abroadForm(tipo);
  const lines = linesEditor(errors, catalog, (p) => (included.checked ||= p.priceIncludesItbis), FIXED_RATE[tipo]);
  const read = () => {
    const items = lines.read();
    const doc = build(
      tipo,
      buyer.read(),
      items.map((i) => i.item),
      reference(original, codigo.value),
      included.checked,
    );
    const foreign = abroad?.apply(doc) ?? [];
    const montoTotal = totalOf(doc);
    const paid = payment.read(montoTotal ?? "0");
    Object.assign((doc.Encabezado as { IdDoc: object }).IdDoc, original ? { TipoPago: "1" } : paid.fields);
    return {
      doc,
      montoTotal,
      local: [...items.flatMap((i) => i.problems), ...foreign, ...(original ? [] : paid.problems)],
    };
  };
  const recheck = async (all = false) => {
    const { doc, montoTotal, local } = read();
    total.textContent = montoTotal ? `Total: ${money(montoTotal)}` : "";
    balance.textContent = original && montoTotal ? (noteRefusal(tipo, original, codigo.value, montoTotal) ?? "") : "";
    const problems = [...local, ...(await problemsOf(doc, check)).filter((p) => !local.some((l) => l.path === p.path))];
    return { doc, problems, first: errors.show(problems, all).first };
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const { doc, problems, first } = await recheck(true);
    if (problems.length) {
      status.textContent = "Corrija los datos marcados antes de emitir.";
      (first ?? errors.general).focus();
      return;
    }
    status.textContent = "Enviando a la DGII…";
    await send(doc, errors, status);
  };
  const form = h(
    "form",
    { onsubmit: submit, class: "issue", novalidate: true },
    ...buyer.fields,
    original ? field("Código de modificación", codigo) : null,
    abroad?.box,
    original ? null : payment.box,
    NO_ITBIS.has(tipo) ? null : h("label", { class: "check" }, included, " Los precios incluyen ITBIS"),
    lines.box,
    lines.addButton,
    total,
    balance,
    errors.general,
    status,
    h("button", { type: "submit", class: "primary" }, "Emitir"),
  );
  buyer.bind(errors);
  abroad?.bind(errors);
  if (original) errors.bind(codigo, "/InformacionReferencia");
  else payment.bind(errors);
  for (const event of ["input", "change"]) form.addEventListener(event, () => void recheck());
  const top = original ? balanceFacts(original) : [typeLinks(sequences, tipo)];
  return h("section", {}, h("h1", {}, `Emitir E${tipo} ${TIPO_NOMBRE[tipo]}`), ...top, form);
};

/** What the form starts from: the note's original, the sequences and the catalogue; none without numbers. */
async function issueData(tipo: string, ref: string | null) {
  const [original, sequences, catalog] = await Promise.all([
    ref ? referenced(ref) : undefined,
    sequencesOf(),
    productsOf(),
  ]);
  const sequence = sequences?.find((s) => s.tipoeCF === tipo);
  return sequences && !sequence?.nextEncf ? undefined : { original, sequences, sequence, catalog };
}

/** POSTs the document; a refusal's problems go to their fields, an accepted one opens its page. */
async function send(doc: Record<string, unknown>, errors: FieldErrors, status: HTMLElement): Promise<void> {
  try {
    const { data, error } = await api.POST("/fe/recepcion/ecf", { body: doc as never });
    const answer = data ?? (error as { encf?: string } | undefined);
    if (answer?.encf) return go(`#/comprobantes/${answer.encf}`);
    status.textContent = "No se emitió el comprobante.";
  } catch (e) {
    if (!(e instanceof ProblemError)) {
      status.textContent = "No se pudo enviar: revise la conexión e intente otra vez.";
      return;
    }
    const problems: FieldProblem[] = e.errors.map((x) => ({
      path: x.path,
      messageEs: (x as { messageEs?: string }).messageEs ?? "Este dato no fue aceptado.",
    }));
    const { first, unplaced } = errors.show(problems, true);
    first?.focus();
    status.textContent = problems.length
      ? `No se emitió: ${unplaced.length ? unplaced.join(" ") : "corrija los datos marcados."}`
      : e.status === 403
        ? "Su usuario no tiene permiso para emitir."
        : "No se emitió el comprobante: intente otra vez.";
  }
}

/** The active products a line can name (none when this user may not read them). */
async function productsOf() {
  try {
    const { data } = await api.GET("/products", { params: { query: { limit: "500", active: "true" } } });
    return data?.items ?? [];
  } catch {
    return [];
  }
}

type Sequence = { tipoeCF: string; nextEncf: string | null; expiresOn: string };

/** The company's sequences (undefined when this user may not read them: every type is offered). */
async function sequencesOf(): Promise<Sequence[] | undefined> {
  try {
    const { data } = await api.GET("/company/sequences");
    return data?.sequences;
  } catch {
    return undefined;
  }
}

function unauthorised(tipo: string): HTMLElement {
  return h(
    "section",
    {},
    h("h1", {}, `Emitir E${tipo} ${TIPO_NOMBRE[tipo]}`),
    h("p", {}, "La empresa no tiene números autorizados para este tipo. "),
    h("a", { href: "#/configuracion" }, "Registrar un rango de la DGII en Configuración"),
  );
}

/** Links to the other types the company may issue by hand. */
function typeLinks(sequences: Sequence[] | undefined, current: string): HTMLElement {
  const open = HAND_TYPES.filter((t) => !sequences || sequences.some((s) => s.tipoeCF === t && s.nextEncf));
  return h(
    "nav",
    { class: "types", "aria-label": "Tipo de comprobante" },
    ...open.map((t) =>
      h("a", { href: `#/emitir/${t}`, "aria-current": t === current ? "page" : null }, `E${t} ${TIPO_NOMBRE[t]}`),
    ),
  );
}

/** MontoTotal as the shared totals compute it, or undefined while a line is unreadable. */
function totalOf(doc: Record<string, unknown>): string | undefined {
  try {
    return computeTotals(doc).Totales.MontoTotal;
  } catch {
    return undefined;
  }
}

/** The InformacionReferencia of a note on `original` (none for an invoice). */
function reference(original: Original | undefined, codigo: string): Record<string, string> | undefined {
  return original
    ? { NCFModificado: original.encf, FechaNCFModificado: original.fechaEmision, CodigoModificacion: codigo }
    : undefined;
}

/** The e-CF request: the buyer, the lines, the reference of a note (payment terms are added after). */
function build(
  tipo: string,
  comprador: Record<string, string> | undefined,
  items: Record<string, unknown>[],
  informacionReferencia: Record<string, string> | undefined,
  pricesIncludeItbis: boolean,
): Record<string, unknown> {
  const idDoc: Record<string, unknown> = { TipoeCF: tipo };
  if (!NO_ITBIS.has(tipo)) idDoc.IndicadorMontoGravado = pricesIncludeItbis ? "1" : "0";
  if (!NO_INCOME.has(tipo)) idDoc.TipoIngresos = "01";
  const encabezado: Record<string, unknown> = { IdDoc: idDoc };
  if (comprador) encabezado.Comprador = comprador;
  const doc: Record<string, unknown> = { Encabezado: encabezado, DetallesItems: items };
  if (informacionReferencia) doc.InformacionReferencia = informacionReferencia;
  return doc;
}
