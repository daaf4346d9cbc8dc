/**
 * Credit and debit notes (E34, E33) against a modified receipt (formato-ecf InformacionReferencia,
 * field 110 d and note 30; informe-tecnico §10).
 *
 * CodigoModificacion: 1 annuls the receipt, 2 corrects text (amount 0.00), 3 corrects amounts,
 * 4 replaces a receipt issued in contingency, 5 references a consumer invoice (from an E31 only).
 */
import { dayNumber } from "./dgii-time.ts";
import { ZERO, add, compare, formatMoney, isZero, parseDecimal, sub, type Decimal } from "./money.ts";

export const CODIGOS_MODIFICACION = ["1", "2", "3", "4", "5"] as const;
export type CodigoModificacion = (typeof CODIGOS_MODIFICACION)[number];

export function isCodigoModificacion(v: unknown): v is CodigoModificacion {
  return typeof v === "string" && (CODIGOS_MODIFICACION as readonly string[]).includes(v);
}

/** A note DGII already accepted against the modified receipt. */
export interface AcceptedNote {
  /** "34" credit note, "33" debit note. */
  tipo: "33" | "34";
  codigoModificacion: CodigoModificacion;
  /** The note's MontoTotal (exact text or Decimal). */
  montoTotal: string | Decimal;
}

/** A note about to be issued. */
export interface ProposedNote {
  tipo: "33" | "34";
  codigoModificacion: CodigoModificacion;
  montoTotal: string | Decimal;
}

export type BalanceRefusal =
  | "already_annulled" // a code-1 credit note was accepted: nothing remains
  | "annulment_after_partial_credit" // code 1 once a code-3 credit note exists
  | "exceeds_available" // credited amounts can never exceed what remains
  | "invalid_amount";

export interface Balance {
  /** What can still be credited: total + debit notes − credit notes, never below 0. */
  available: string;
  credited: string;
  debited: string;
  annulled: boolean;
  partiallyCredited: boolean;
  /** Present when a proposed note was given: whether it may be issued, and why not. */
  proposal?: { ok: true } | { ok: false; reason: BalanceRefusal };
}

function amount(v: string | Decimal): Decimal | undefined {
  return typeof v === "string" ? parseDecimal(v) : v;
}

/**
 * The balance still open on a modified receipt, given the notes accepted against it, and (with
 * `proposed`) whether one more note may be issued: a credit note's amount must not exceed the
 * balance, a total annulment (code 1) is refused once a partial credit note (code 3) was accepted,
 * and nothing more can be credited after an annulment.
 */
export function availableBalance(
  modifiedTotal: string | Decimal,
  accepted: readonly AcceptedNote[],
  proposed?: ProposedNote,
): Balance {
  const total = amount(modifiedTotal) ?? ZERO;
  let credited = ZERO;
  let debited = ZERO;
  let annulled = false;
  let partiallyCredited = false;
  for (const n of accepted) {
    const m = amount(n.montoTotal) ?? ZERO;
    if (n.tipo === "34") {
      credited = add(credited, m);
      if (n.codigoModificacion === "1") annulled = true;
      if (n.codigoModificacion === "3") partiallyCredited = true;
    } else {
      debited = add(debited, m);
    }
  }
  const raw = sub(add(total, debited), credited);
  const available = annulled || compare(raw, ZERO) < 0 ? ZERO : raw;
  const result: Balance = {
    available: formatMoney(available),
    credited: formatMoney(credited),
    debited: formatMoney(debited),
    annulled,
    partiallyCredited,
  };
  if (proposed) result.proposal = judgeProposal(proposed, available, annulled, partiallyCredited);
  return result;
}

function judgeProposal(
  p: ProposedNote,
  available: Decimal,
  annulled: boolean,
  partiallyCredited: boolean,
): Balance["proposal"] {
  const m = amount(p.montoTotal);
  if (!m || m.coef < 0n) return { ok: false, reason: "invalid_amount" };
  if (annulled) return { ok: false, reason: "already_annulled" };
  if (p.tipo === "33") return { ok: true };
  if (p.codigoModificacion === "1" && partiallyCredited) return { ok: false, reason: "annulment_after_partial_credit" };
  if (p.codigoModificacion === "2") return isZero(m) ? { ok: true } : { ok: false, reason: "invalid_amount" };
  if (compare(m, available) > 0) return { ok: false, reason: "exceeds_available" };
  return { ok: true };
}

/** More than 30 calendar days from the modified receipt to the credit note: no ITBIS refund. */
export const CREDIT_NOTE_ITBIS_DAYS = 30;

/**
 * IndicadorNotaCredito of an E34: "1" when more than 30 calendar days separate the note's
 * FechaEmision from FechaNCFModificado, else "0" (formato-ecf field 5). Undefined if a date is bad.
 */
export function indicadorNotaCredito(fechaEmision: unknown, fechaNCFModificado: unknown): "0" | "1" | undefined {
  const a = dayNumber(fechaEmision);
  const b = dayNumber(fechaNCFModificado);
  if (a === undefined || b === undefined) return undefined;
  return a - b > CREDIT_NOTE_ITBIS_DAYS ? "1" : "0";
}
