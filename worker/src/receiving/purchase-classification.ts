// The 606 classification of a purchase: what the buyer must add to a supplier's e-CF before it
// can be reported (Norma General 07-2018; formato-606-607-608.txt §1 and §4). Each field comes,
// in this order, from the purchase's own classification (PATCH /compras/{id}), the defaults the
// issuer set for the supplier, the supplier's document (its TablaFormasPago, its declared
// withholdings), then the defaults learned from the supplier's last classification: the buyer's
// word first, then the evidence on this invoice, then a guess from history. What is still missing
// is listed, never guessed further.
import { z } from "@hono/zod-openapi";
import {
  compare,
  dec,
  divide,
  formatDecimal,
  formatMoney,
  isZero,
  mul,
  parseDecimal,
  percentOf,
  roundHalfUp,
  ZERO,
  type Decimal,
} from "@ecf/shared";
import { ApiProblem, type ProblemItem } from "../errors/problem.ts";
import { findPurchase, issuerLedger } from "../ledger/client.ts";
import type { Purchase } from "../ledger/rows.ts";
import type { SupplierDefault, SupplierDefaultValues } from "../ledger/issuer/supplier-defaults.ts";
import type { Company } from "../db/tables.ts";
import { figuresOfRow } from "../ledger/figures-backfill.ts";
import type { DocumentFigures } from "../ledger/month/document-figures.ts";

/** Tipo de Bienes y Servicios Comprados (606 column 3). */
export const TIPOS_BIENES_SERVICIOS = {
  "01": "Gastos de personal",
  "02": "Gastos por trabajos, suministros y servicios",
  "03": "Arrendamientos",
  "04": "Gastos de activos fijos",
  "05": "Gastos de representación",
  "06": "Otras deducciones admitidas",
  "07": "Gastos financieros",
  "08": "Gastos extraordinarios",
  "09": "Compras y gastos que formarán parte del costo de venta",
  "10": "Adquisiciones de activos",
  "11": "Gastos de seguros",
} as const;

/** Forma de Pago (606 column 23). */
export const FORMAS_PAGO_606 = {
  "01": "Efectivo",
  "02": "Cheques/Transferencias/Depósito",
  "03": "Tarjeta crédito/débito",
  "04": "Compra a crédito",
  "05": "Permuta",
  "06": "Nota de crédito",
  "07": "Mixto",
} as const;

/** Tipo de Retención en ISR (606 column 17). */
export const TIPOS_RETENCION_ISR = {
  "01": "Alquileres",
  "02": "Honorarios por servicios",
  "03": "Otras rentas",
  "04": "Otras rentas (rentas presuntas)",
  "05": "Intereses pagados a personas jurídicas residentes",
  "06": "Intereses pagados a personas físicas residentes",
  "07": "Retención por proveedores del Estado",
  "08": "Juegos telefónicos",
  "09": "Retenciones subsector ganadería de carne bovina",
} as const;

const codes = <T extends Record<string, string>>(table: T) =>
  Object.keys(table) as [keyof T & string, ...(keyof T & string)[]];
const describe = (table: Record<string, string>) =>
  Object.entries(table)
    .map(([code, name]) => `${code} ${name}`)
    .join("; ");

/**
 * The e-CF's FormaPago (1–8) as the 606's Forma de Pago. The 606 has no bonos nor "otras formas":
 * those count as 07 (Mixto, the 606's only catch-all); several forms on one invoice are 07 too.
 */
const FORMA_PAGO_606_OF_ECF: Record<string, string> = {
  "1": "01",
  "2": "02",
  "3": "03",
  "4": "04",
  "5": "07",
  "6": "05",
  "7": "06",
  "8": "07",
};

/**
 * The 606 Forma de Pago an e-CF states: its TablaFormasPago, or TipoPago 2 (crédito) as 04.
 * `paidAtOnce` is what TipoPago 1 (contado) without a table means: unknown on a supplier's
 * invoice (null), cash on the issuer's own E41/E43/E47 (the issuer paid it when it issued it).
 */
export function formaPagoOfDocument(figures: DocumentFigures, paidAtOnce: string | null): string | null {
  const forms = new Set(figures.formasPago.map((f) => FORMA_PAGO_606_OF_ECF[f.formaPago] ?? "07"));
  if (forms.size === 1) return [...forms][0]!;
  if (forms.size > 1) return "07";
  if (figures.tipoPago === "2") return "04";
  return figures.tipoPago === "1" ? paidAtOnce : null;
}

// ------------------------------------------------------------------------------ request bodies

const AMOUNT = /^\d{1,16}(\.\d{1,2})?$/;
const PERCENT = /^\d{1,3}(\.\d{1,2})?$/;

const amountField = (description: string) =>
  z
    .union([z.string(), z.number()])
    .refine((v) => AMOUNT.test(String(v)), 'expected an amount ≥ 0 with at most 2 decimals, e.g. "540.00"')
    .nullable()
    .optional()
    .openapi({
      description: `${description}. An exact decimal (string or number), at most 2 decimals; null clears it`,
      example: "540.00",
    });

const percentField = (description: string) =>
  z
    .union([z.string(), z.number()])
    .refine(
      (v) => PERCENT.test(String(v)) && compare(dec(String(v)), dec("100")) <= 0,
      "expected a percentage from 0 to 100 with at most 2 decimals",
    )
    .nullable()
    .optional()
    .openapi({ description, example: "30" });

const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "expected yyyy-MM-dd")
  .refine(
    (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    "not a calendar date",
  );

const codeField = (table: Record<string, string>, title: string) =>
  z
    .enum(codes(table))
    .nullable()
    .optional()
    .openapi({ description: `${title}: ${describe(table)}. null clears it` });

export const PurchaseClassificationBody = z
  .object({
    tipoBienesServicios: codeField(TIPOS_BIENES_SERVICIOS, "Tipo de Bienes y Servicios Comprados (606 column 3)"),
    fechaPago: calendarDate.nullable().optional().openapi({
      description: "Fecha de Pago (606 column 7), yyyy-MM-dd: required when ITBIS or ISR is withheld",
      example: "2026-05-20",
    }),
    formaPago: codeField(FORMAS_PAGO_606, "Forma de Pago (606 column 23)"),
    tipoRetencionIsr: codeField(TIPOS_RETENCION_ISR, "Tipo de Retención en ISR (606 column 17)"),
    itbisRetenido: amountField("ITBIS Retenido (606 column 12), at most the ITBIS facturado"),
    montoRetencionRenta: amountField("Monto Retención Renta (606 column 18), at most the amount without taxes"),
    itbisAlCosto: amountField("ITBIS llevado al Costo (606 column 14), at most the ITBIS facturado"),
    itbisProporcionalidad: amountField(
      "ITBIS sujeto a Proporcionalidad, Art. 349 (606 column 13), at most the ITBIS facturado",
    ),
  })
  .strict()
  .openapi("PurchaseClassification");

export type PurchaseClassificationInput = z.infer<typeof PurchaseClassificationBody>;

export const SupplierDefaultBody = z
  .object({
    tipoBienesServicios: codeField(TIPOS_BIENES_SERVICIOS, "Tipo de Bienes y Servicios Comprados"),
    formaPago: codeField(FORMAS_PAGO_606, "Forma de Pago"),
    tipoRetencionIsr: codeField(TIPOS_RETENCION_ISR, "Tipo de Retención en ISR"),
    itbisRetenidoPorcentaje: percentField(
      "ITBIS withheld, as a percentage of the purchase's ITBIS facturado (e.g. 30 or 100)",
    ),
    retencionRentaPorcentaje: percentField(
      "ISR withheld, as a percentage of the purchase's amount without taxes (e.g. 10 or 2)",
    ),
    itbisAlCostoPorcentaje: percentField("ITBIS taken to cost, as a percentage of the purchase's ITBIS facturado"),
  })
  .strict()
  .openapi("SupplierClassificationDefaults");

export type SupplierDefaultInput = z.infer<typeof SupplierDefaultBody>;

// ------------------------------------------------------------------------------- resolution

/** Where a field's value came from: this purchase, the supplier's defaults, the document, or the type's rule. */
export type Source = "purchase" | "supplier" | "document" | "rule";

export const CLASSIFICATION_FIELDS = [
  "tipoBienesServicios",
  "fechaPago",
  "formaPago",
  "tipoRetencionIsr",
  "itbisRetenido",
  "montoRetencionRenta",
  "itbisAlCosto",
  "itbisProporcionalidad",
] as const;
export type ClassificationField = (typeof CLASSIFICATION_FIELDS)[number];

/** A purchase (or an own E41/E43/E47) as the 606 reports it; amounts rounded to cents. */
export interface Resolved606 {
  tipoBienesServicios: string | null;
  /** yyyy-MM-dd. */
  fechaPago: string | null;
  formaPago: string | null;
  tipoRetencionIsr: string | null;
  itbisRetenido: Decimal;
  montoRetencionRenta: Decimal;
  itbisAlCosto: Decimal;
  itbisProporcionalidad: Decimal;
  sources: Partial<Record<ClassificationField, Source>>;
}

/** A gap that keeps the 606 from being filed: which field, and why. */
export interface ClassificationGap {
  code: "unclassified" | "payment_date_missing" | "retention_type_missing" | "itbis_al_costo_exceeds";
  field: ClassificationField;
  message: string;
}

const rated = (base: string, percent: string | null) =>
  percent === null ? undefined : roundHalfUp(percentOf(dec(base), dec(percent)));
const money = (value: string | null | undefined) => (value === null || value === undefined ? undefined : dec(value));

/** Picks the first defined value of each candidate, remembering where it came from. */
function pick<T>(
  sources: Resolved606["sources"],
  field: ClassificationField,
  candidates: [Source, T | null | undefined][],
): T | null {
  for (const [source, value] of candidates) {
    if (value !== null && value !== undefined) {
      sources[field] = source;
      return value;
    }
  }
  return null;
}

/**
 * A person classified this purchase: they chose its kind of expense (PATCH /compras/{id}), so what
 * they left empty beside it was decided, not forgotten. A payment date alone classifies nothing.
 */
export const classifiedByPerson = (purchase: Pick<Purchase, "tipoBienesServicios">) =>
  purchase.tipoBienesServicios !== null;

/**
 * A supplier's purchase, as the 606 will report it. Defaults the issuer set for the supplier fill
 * what the purchase does not say. Defaults learned from another purchase fill a purchase no person
 * has classified yet; once a person has, they fill only the payment form every line needs when it
 * is left empty, never an amount or the ISR withholding type: a zero a person left is a decision,
 * and a learned withholding would report one never made.
 */
export function resolvePurchase(
  purchase: Purchase,
  figures: DocumentFigures,
  supplier: SupplierDefault | null,
): Resolved606 {
  const sources: Resolved606["sources"] = {};
  const set = supplier?.origin === "set" ? supplier : null;
  const learnedCodes = supplier?.origin === "learned" ? supplier : null;
  const learned = classifiedByPerson(purchase) ? null : learnedCodes;
  const itbisRate = (d: SupplierDefault | null) => rated(figures.itbisFacturado, d?.itbisRetenidoPorcentaje ?? null);
  const rentaRate = (d: SupplierDefault | null) => rated(figures.montoFacturado, d?.retencionRentaPorcentaje ?? null);
  const costRate = (d: SupplierDefault | null) => rated(figures.itbisFacturado, d?.itbisAlCostoPorcentaje ?? null);
  return {
    tipoBienesServicios: pick(sources, "tipoBienesServicios", [
      ["purchase", purchase.tipoBienesServicios],
      ["supplier", set?.tipoBienesServicios],
      ["supplier", learned?.tipoBienesServicios],
    ]),
    fechaPago: pick(sources, "fechaPago", [["purchase", purchase.fechaPago]]),
    formaPago: pick(sources, "formaPago", [
      ["purchase", purchase.formaPago],
      ["supplier", set?.formaPago],
      ["document", formaPagoOfDocument(figures, null)],
      ["supplier", learnedCodes?.formaPago],
    ]),
    tipoRetencionIsr: pick(sources, "tipoRetencionIsr", [
      ["purchase", purchase.tipoRetencionIsr],
      ["supplier", set?.tipoRetencionIsr],
      ["supplier", learned?.tipoRetencionIsr],
    ]),
    itbisRetenido:
      pick(sources, "itbisRetenido", [
        ["purchase", money(purchase.itbisRetenido)],
        ["supplier", itbisRate(set)],
        ["document", money(figures.itbisRetenido)],
        ["supplier", itbisRate(learned)],
      ]) ?? ZERO,
    montoRetencionRenta:
      pick(sources, "montoRetencionRenta", [
        ["purchase", money(purchase.montoRetencionRenta)],
        ["supplier", rentaRate(set)],
        ["document", money(figures.retencionRenta)],
        ["supplier", rentaRate(learned)],
      ]) ?? ZERO,
    itbisAlCosto:
      pick(sources, "itbisAlCosto", [
        ["purchase", money(purchase.itbisAlCosto)],
        ["supplier", costRate(set)],
        ["supplier", costRate(learned)],
      ]) ?? ZERO,
    itbisProporcionalidad:
      pick(sources, "itbisProporcionalidad", [["purchase", money(purchase.itbisProporcionalidad)]]) ?? ZERO,
    sources,
  };
}

/** What keeps a resolved purchase out of a complete 606 (the checks DGII's tool makes, §1). */
export function classificationGaps(
  resolved: Resolved606,
  figures: Pick<DocumentFigures, "itbisFacturado">,
): ClassificationGap[] {
  const gaps: ClassificationGap[] = [];
  if (!resolved.tipoBienesServicios)
    gaps.push({
      code: "unclassified",
      field: "tipoBienesServicios",
      message: "Tipo de Bienes y Servicios Comprados is not set (PATCH /compras/{id}, or a default for the supplier).",
    });
  if (!resolved.formaPago)
    gaps.push({
      code: "unclassified",
      field: "formaPago",
      message: "Forma de Pago is not set (04 when still unpaid).",
    });
  const withheld = !isZero(resolved.itbisRetenido) || !isZero(resolved.montoRetencionRenta);
  if (withheld && !resolved.fechaPago)
    gaps.push({
      code: "payment_date_missing",
      field: "fechaPago",
      message: "ITBIS or ISR is withheld: the Fecha de Pago is required.",
    });
  if (!isZero(resolved.montoRetencionRenta) && !resolved.tipoRetencionIsr)
    gaps.push({
      code: "retention_type_missing",
      field: "tipoRetencionIsr",
      message: "ISR is withheld: the Tipo de Retención en ISR is required.",
    });
  if (compare(resolved.itbisAlCosto, dec(figures.itbisFacturado)) > 0)
    gaps.push({
      code: "itbis_al_costo_exceeds",
      field: "itbisAlCosto",
      message: `ITBIS llevado al Costo exceeds the ITBIS facturado (${figures.itbisFacturado}).`,
    });
  return gaps;
}

/** The resolved fields as JSON (amounts as DGII text), with where each came from. */
export function resolvedView(resolved: Resolved606) {
  return {
    tipoBienesServicios: resolved.tipoBienesServicios,
    fechaPago: resolved.fechaPago,
    formaPago: resolved.formaPago,
    tipoRetencionIsr: resolved.tipoRetencionIsr,
    itbisRetenido: formatMoney(resolved.itbisRetenido),
    montoRetencionRenta: formatMoney(resolved.montoRetencionRenta),
    itbisAlCosto: formatMoney(resolved.itbisAlCosto),
    itbisProporcionalidad: formatMoney(resolved.itbisProporcionalidad),
    sources: resolved.sources,
  };
}

// --------------------------------------------------------------------------------- learning

/**
 * A rate worth remembering: the percentage (2 decimals) that gives back exactly this amount from
 * this base under DGII's rounding; a one-off figure that no rate reproduces is not learned.
 */
export function reproducibleRate(amount: Decimal, base: Decimal): string | null {
  if (isZero(base)) return null;
  const rate = divide(mul(amount, dec("100")), base, 2);
  if (compare(rate, dec("100")) > 0 || rate.coef < 0n) return null;
  return compare(roundHalfUp(percentOf(base, rate)), roundHalfUp(amount)) === 0 ? formatDecimal(rate) : null;
}

/**
 * What a purchase's own classification teaches about its supplier. A debit or credit note teaches
 * only the kind of expense: its payment form (a credit note is paid with the note, 06) and its
 * withholdings say nothing about the supplier's invoices.
 */
export function learnedDefaults(purchase: Purchase, figures: DocumentFigures): Partial<SupplierDefaultValues> {
  const rateOf = (value: string | null, base: string) =>
    value === null ? null : reproducibleRate(dec(value), dec(base));
  if (purchase.tipoeCF === "33" || purchase.tipoeCF === "34")
    return { tipoBienesServicios: purchase.tipoBienesServicios };
  return {
    tipoBienesServicios: purchase.tipoBienesServicios,
    formaPago: purchase.formaPago,
    tipoRetencionIsr: purchase.tipoRetencionIsr,
    itbisRetenidoPorcentaje: rateOf(purchase.itbisRetenido, figures.itbisFacturado),
    retencionRentaPorcentaje: rateOf(purchase.montoRetencionRenta, figures.montoFacturado),
    itbisAlCostoPorcentaje: rateOf(purchase.itbisAlCosto, figures.itbisFacturado),
  };
}

// ------------------------------------------------------------------------------ the request

const AMOUNT_FIELDS: ReadonlySet<ClassificationField> = new Set([
  "itbisRetenido",
  "montoRetencionRenta",
  "itbisAlCosto",
  "itbisProporcionalidad",
]);

/** Amounts as DGII text ("540.00"); a date or code as given; null clears; absent keeps. */
function merged(purchase: Purchase, body: PurchaseClassificationInput) {
  const next = {
    tipoBienesServicios: purchase.tipoBienesServicios,
    fechaPago: purchase.fechaPago,
    formaPago: purchase.formaPago,
    tipoRetencionIsr: purchase.tipoRetencionIsr,
    itbisRetenido: purchase.itbisRetenido,
    montoRetencionRenta: purchase.montoRetencionRenta,
    itbisAlCosto: purchase.itbisAlCosto,
    itbisProporcionalidad: purchase.itbisProporcionalidad,
  };
  for (const field of CLASSIFICATION_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (value === null) next[field] = null;
    else next[field] = AMOUNT_FIELDS.has(field) ? formatMoney(parseDecimal(String(value))!) : String(value);
  }
  return next;
}

/** Problems of a classification against the document it classifies (each a 400 with its field). */
function contradictions(next: ReturnType<typeof merged>, purchase: Purchase, figures: DocumentFigures): ProblemItem[] {
  const problems: ProblemItem[] = [];
  const notAbove = (field: ClassificationField, limit: string, what: string) => {
    const value = next[field];
    if (value !== null && compare(dec(value), dec(limit)) > 0)
      problems.push({
        path: `/${field}`,
        code: "exceeds_document",
        message: `${field} (${value}) exceeds the ${what} of ${purchase.encf} (${limit}).`,
      });
  };
  notAbove("itbisRetenido", figures.itbisFacturado, "ITBIS facturado");
  notAbove("itbisAlCosto", figures.itbisFacturado, "ITBIS facturado");
  notAbove("itbisProporcionalidad", figures.itbisFacturado, "ITBIS facturado");
  notAbove("montoRetencionRenta", figures.montoFacturado, "amount without taxes");
  if (next.fechaPago && next.fechaPago < purchase.issueDate) {
    problems.push({
      path: "/fechaPago",
      code: "before_issue_date",
      message: `fechaPago is before the purchase's FechaEmision (${purchase.issueDate}).`,
    });
  }
  return problems;
}

export interface ClassifiedPurchase {
  /** PATCH only: the fields whose effective value (what the 606 reports) this request changed. */
  changed?: ClassificationField[];
  id: string;
  encf: string;
  rncEmisor: string;
  tipoeCF: string;
  fechaEmision: string;
  /** What was given for this purchase itself. */
  classification: Record<ClassificationField, string | null>;
  /** What the 606 will report, with where each value comes from. */
  effective: ReturnType<typeof resolvedView>;
  missing: ClassificationGap[];
}

export function classifiedView(
  purchase: Purchase,
  figures: DocumentFigures,
  supplier: SupplierDefault | null,
): ClassifiedPurchase {
  const resolved = resolvePurchase(purchase, figures, supplier);
  const classification = Object.fromEntries(CLASSIFICATION_FIELDS.map((f) => [f, purchase[f]])) as Record<
    ClassificationField,
    string | null
  >;
  const effective = resolvedView(resolved);
  const missing = classificationGaps(resolved, figures);
  return {
    id: purchase.id,
    encf: purchase.encf,
    rncEmisor: purchase.rncEmisor,
    tipoeCF: purchase.tipoeCF,
    fechaEmision: purchase.issueDate,
    classification,
    effective,
    missing,
  };
}

/**
 * PATCH /compras/{id}: merges the classification (JSON merge patch: an absent field stays, null
 * clears), checks it against the document, stores it, and lets the supplier's defaults learn from
 * it (unless the issuer set them itself).
 */
export async function classifyPurchase(
  env: Env,
  company: Company,
  id: string,
  body: PurchaseClassificationInput,
  now: Date,
): Promise<ClassifiedPurchase> {
  const found = await findPurchase(env, company.id, id);
  if (!found) throw new ApiProblem("not_found", { detail: `No received e-CF ${id} for this company.` });
  const { purchase, month } = found;
  const figures = await figuresOfRow(env, month, "purchases", purchase);
  const ledger = issuerLedger(env, company.id);
  const [before] = await ledger.catalogue().supplierDefaults([purchase.rncEmisor]);
  const was = resolvedView(resolvePurchase(purchase, figures, before ?? null));
  const next = merged(purchase, body);
  const problems = contradictions(next, purchase, figures);
  if (problems.length)
    throw new ApiProblem("validation_failed", {
      detail: `The classification does not fit ${purchase.encf}.`,
      errors: problems,
    });
  const stored = await month.reports().classifyPurchase(purchase.id, { ...next, classifiedAt: now.toISOString() });
  if (!stored) throw new ApiProblem("not_found", { detail: `No received e-CF ${id} for this company.` });
  const supplier = await ledger.catalogue().learnSupplierDefault(stored.rncEmisor, learnedDefaults(stored, figures));
  const view = classifiedView(stored, figures, supplier);
  const changed = CLASSIFICATION_FIELDS.filter((field) => view.effective[field] !== was[field]);
  return { ...view, changed };
}

/** GET /compras/{id}/clasificacion. */
export async function purchaseClassification(env: Env, company: Company, id: string): Promise<ClassifiedPurchase> {
  const found = await findPurchase(env, company.id, id);
  if (!found) throw new ApiProblem("not_found", { detail: `No received e-CF ${id} for this company.` });
  const figures = await figuresOfRow(env, found.month, "purchases", found.purchase);
  const [supplier] = await issuerLedger(env, company.id).catalogue().supplierDefaults([found.purchase.rncEmisor]);
  return classifiedView(found.purchase, figures, supplier ?? null);
}

/** The body of PUT /proveedores/{rnc}/clasificacion as stored values (percentages as exact text). */
export function supplierDefaultValues(body: SupplierDefaultInput): SupplierDefaultValues {
  const percent = (v: string | number | null | undefined) =>
    v === null || v === undefined ? null : formatDecimal(dec(String(v)));
  return {
    tipoBienesServicios: body.tipoBienesServicios ?? null,
    formaPago: body.formaPago ?? null,
    tipoRetencionIsr: body.tipoRetencionIsr ?? null,
    itbisRetenidoPorcentaje: percent(body.itbisRetenidoPorcentaje),
    retencionRentaPorcentaje: percent(body.retencionRentaPorcentaje),
    itbisAlCostoPorcentaje: percent(body.itbisAlCostoPorcentaje),
  };
}
