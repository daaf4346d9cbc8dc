/**
 * The checks of single fields that the XSD and the obligation matrix cannot make: dates are real
 * and in order, RNCs and the e-NCF are well formed, and a note (E33/E34) agrees with the receipt it
 * modifies as our records know it. Each answers its problems and never writes into the document.
 */
import { availableBalance, isCodigoModificacion, type CodigoModificacion } from "../credit-notes.ts";
import { dayNumber } from "../dgii-time.ts";
import { isHighValueConsumo } from "../ecf-rules.ts";
import { eNcfProblems, parseENcf, rncProblems } from "../ids.ts";
import { formatMoney, parseDecimal, type Decimal } from "../money.ts";
import { problem, type Problem } from "../problems.ts";
import type { TipoeCF } from "../tipos.ts";
import { codeOf, isPresent, objAt, textOf, type JsonObject } from "../totals-read.ts";
import type { ModifiedReceipt, ValidationContext } from "./context.ts";

/** How a date must stand to another one: on or after it (">=") or on or before it ("<="). */
interface DateOrder {
  op: ">=" | "<=";
  other: number | undefined;
  otherName: string;
}

/**
 * Dates: real calendar dates, and their order (formato-ecf validations of each date field). With
 * no known type (a bad TipoeCF), all but the type's own (E33/E34).
 */
export function dateProblems(doc: JsonObject, tipo: TipoeCF | undefined): Problem[] {
  const out: Problem[] = [];
  const idDoc = objAt(doc, "Encabezado", "IdDoc");
  const emision = textOf(objAt(doc, "Encabezado", "Emisor"), "FechaEmision");
  const dEmision = dayNumber(emision);
  const afterEmision: DateOrder = { op: ">=", other: dEmision, otherName: "FechaEmision" };
  checkDate(out, "/Encabezado/Emisor/FechaEmision", "FechaEmision", emision);
  checkDate(
    out,
    "/Encabezado/IdDoc/FechaVencimientoSecuencia",
    "FechaVencimientoSecuencia",
    textOf(idDoc, "FechaVencimientoSecuencia"),
    afterEmision,
  );
  checkDate(
    out,
    "/Encabezado/IdDoc/FechaLimitePago",
    "FechaLimitePago",
    textOf(idDoc, "FechaLimitePago"),
    afterEmision,
  );
  const desde = textOf(idDoc, "FechaDesde");
  checkDate(out, "/Encabezado/IdDoc/FechaDesde", "FechaDesde", desde);
  checkDate(out, "/Encabezado/IdDoc/FechaHasta", "FechaHasta", textOf(idDoc, "FechaHasta"), {
    op: ">=",
    other: dayNumber(desde),
    otherName: "FechaDesde",
  });
  if (tipo === "33" || tipo === "34") {
    checkDate(
      out,
      "/InformacionReferencia/FechaNCFModificado",
      "FechaNCFModificado",
      textOf(objAt(doc, "InformacionReferencia"), "FechaNCFModificado"),
      { op: "<=", other: dEmision, otherName: "FechaEmision" },
    );
  }
  return out;
}

/** One date field, when present: a real date dd-MM-yyyy, and in `order` to another when that one is known. */
function checkDate(out: Problem[], pointer: string, field: string, value: string | undefined, order?: DateOrder): void {
  if (value === undefined) return;
  const d = dayNumber(value);
  if (d === undefined) {
    out.push(
      problem(
        pointer,
        "invalid_date",
        "error",
        `${field} must be a real date dd-MM-yyyy`,
        `${field} debe ser una fecha válida dd-MM-AAAA`,
        `formato-ecf: ${field} (fecha válida)`,
        { value },
      ),
    );
    return;
  }
  if (order && order.other !== undefined && !(order.op === ">=" ? d >= order.other : d <= order.other)) {
    const en = order.op === ">=" ? "on or after" : "on or before";
    const es = order.op === ">=" ? "igual o posterior a" : "igual o anterior a";
    out.push(
      problem(
        pointer,
        "invalid_date_order",
        "error",
        `${field} must be ${en} ${order.otherName}`,
        `${field} debe ser ${es} ${order.otherName}`,
        `formato-ecf: ${field}`,
        { value },
      ),
    );
  }
}

/** RNC and e-NCF checks; with no known type, the e-NCF (whose type must match) is left out. */
export function idProblems(doc: JsonObject, tipo: TipoeCF | undefined): Problem[] {
  const out: Problem[] = [];
  const emisor = objAt(doc, "Encabezado", "Emisor");
  const comprador = objAt(doc, "Encabezado", "Comprador");
  if (isPresent(emisor?.RNCEmisor))
    out.push(...rncProblems(emisor!.RNCEmisor, "/Encabezado/Emisor/RNCEmisor", "RNCEmisor"));
  if (isPresent(comprador?.RNCComprador))
    out.push(...rncProblems(comprador!.RNCComprador, "/Encabezado/Comprador/RNCComprador", "RNCComprador"));
  const otro = objAt(doc, "InformacionReferencia")?.RNCOtroContribuyente;
  if (isPresent(otro))
    out.push(...rncProblems(otro, "/InformacionReferencia/RNCOtroContribuyente", "RNCOtroContribuyente"));
  const encf = objAt(doc, "Encabezado", "IdDoc")?.eNCF;
  if (tipo && isPresent(encf)) out.push(...eNcfProblems(encf, tipo, "/Encabezado/IdDoc/eNCF"));
  return out;
}

/** E33/E34 against the modified receipt as our records know it (context.modifiedReceipt). */
export function modifiedReceiptProblems(
  doc: JsonObject,
  tipo: TipoeCF,
  montoTotal: Decimal,
  context: ValidationContext,
): Problem[] {
  const m = context.modifiedReceipt;
  if (!m || (tipo !== "33" && tipo !== "34")) return [];
  const out = referenceProblems(doc, m);
  const modifiedTotal = parseDecimal(m.montoTotal);
  out.push(...unidentifiedBuyerProblems(doc, tipo, m, modifiedTotal));
  const codigo = codeOf(objAt(doc, "InformacionReferencia"), "CodigoModificacion");
  if (!isCodigoModificacion(codigo) || !modifiedTotal) return out;
  out.push(...balanceProblems(tipo, codigo, montoTotal, m));
  return out;
}

/** NCFModificado and FechaNCFModificado name the modified receipt (its FechaEmision, when known). */
function referenceProblems(doc: JsonObject, m: ModifiedReceipt): Problem[] {
  const out: Problem[] = [];
  const ref = objAt(doc, "InformacionReferencia");
  const ncf = textOf(ref, "NCFModificado");
  if (ncf !== undefined && ncf !== m.eNCF) {
    out.push(
      problem(
        "/InformacionReferencia/NCFModificado",
        "invalid_reference",
        "error",
        `NCFModificado ${ncf} is not the receipt being modified (${m.eNCF})`,
        `NCFModificado ${ncf} no es el comprobante modificado (${m.eNCF})`,
        "formato-ecf: NCFModificado",
      ),
    );
  }
  const fecha = textOf(ref, "FechaNCFModificado");
  if (fecha !== undefined && m.fechaEmision !== undefined && fecha !== m.fechaEmision) {
    out.push(
      problem(
        "/InformacionReferencia/FechaNCFModificado",
        "invalid_reference",
        "error",
        `FechaNCFModificado must be the modified receipt's FechaEmision ${m.fechaEmision}`,
        `FechaNCFModificado debe ser la FechaEmision del comprobante modificado ${m.fechaEmision}`,
        "formato-ecf: FechaNCFModificado",
      ),
    );
  }
  return out;
}

/** A note on an E32 of 250,000 DOP or more identifies the buyer too (formato-ecf RNCComprador c). */
function unidentifiedBuyerProblems(
  doc: JsonObject,
  tipo: TipoeCF,
  m: ModifiedReceipt,
  modifiedTotal: Decimal | undefined,
): Problem[] {
  const comprador = objAt(doc, "Encabezado", "Comprador");
  if (
    parseENcf(m.eNCF)?.tipo !== "32" ||
    !modifiedTotal ||
    !isHighValueConsumo("32", modifiedTotal) ||
    isPresent(comprador?.RNCComprador) ||
    isPresent(comprador?.IdentificadorExtranjero)
  ) {
    return [];
  }
  return [
    problem(
      "/Encabezado/Comprador/RNCComprador",
      "required",
      "error",
      "A note on an E32 of 250,000.00 DOP or more must identify the buyer (RNCComprador or IdentificadorExtranjero)",
      "Una nota sobre una E32 de DOP 250,000.00 o más debe identificar al comprador (RNCComprador o IdentificadorExtranjero)",
      `formato-ecf: RNCComprador (${tipo}: 2, modifica E32 ≥ DOP$250,000.00)`,
    ),
  ];
}

/** The note's amount against what remains of the modified receipt after the notes already accepted. */
function balanceProblems(
  tipo: "33" | "34",
  codigo: CodigoModificacion,
  montoTotal: Decimal,
  m: ModifiedReceipt,
): Problem[] {
  const balance = availableBalance(m.montoTotal, m.acceptedNotes ?? [], {
    tipo,
    codigoModificacion: codigo,
    montoTotal: montoTotal,
  });
  const verdict = balance.proposal;
  if (!verdict || verdict.ok) return [];
  const [en, es] = refusalTexts(balance.available)[verdict.reason] ?? ["The note is not allowed", "La nota no procede"];
  return [
    problem(
      "/Encabezado/Totales/MontoTotal",
      `credit_${verdict.reason}`,
      "error",
      en,
      es,
      "formato-ecf: MontoTotal (d) y nota 30",
      {
        ...balance,
        proposal: undefined,
        montoTotal: formatMoney(montoTotal),
      },
    ),
  ];
}

/** Why a note is refused, in English and Spanish, by availableBalance's reason. */
function refusalTexts(available: string): Record<string, [string, string]> {
  return {
    already_annulled: [
      "The modified receipt was already annulled by a credit note",
      "El comprobante modificado ya fue anulado por una nota de crédito",
    ],
    annulment_after_partial_credit: [
      "A total annulment (CodigoModificacion 1) is not possible after a partial credit note (3)",
      "No procede una anulación total (CodigoModificacion 1) después de una nota de crédito parcial (3)",
    ],
    exceeds_available: [
      `The credit exceeds what remains of the modified receipt (${available})`,
      `El crédito excede lo que resta del comprobante modificado (${available})`,
    ],
    invalid_amount: [
      "The note's amount is not valid for its CodigoModificacion",
      "El monto de la nota no es válido para su CodigoModificacion",
    ],
  };
}
