// Numbers a till gave up: it took them from its own leases and will never sign them (the tab died
// between numbering and signing). DGII must hear that they are void (ANECF), or the sequence has a
// gap. Voiding is an owner's or accountant's act, so the till's list only proposes them
// (given-up-proposals.ts); once confirmed, this voids them through the same path as POST
// /fe/anulacion (issuing/void.ts), which makes an exception for the device's own leases.
import type { POS_TIPOS } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { problemOf } from "../errors/problem-of.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { voidRanges, type VoidRange } from "../issuing/void.ts";

/** How many numbers one request names. */
export const MAX_GIVEN_UP = 100;

export interface GivenUpNumber {
  tipoeCF: (typeof POS_TIPOS)[number];
  encf: string;
}

/** One number's outcome: voided now or before (`replayed`), or refused with the reason. */
export interface GivenUpResult extends GivenUpNumber {
  anulado: boolean;
  replayed: boolean;
  error?: { code: string; message: string };
  /** Waiting for an owner or accountant to confirm it (nothing was sent to DGII yet). */
  proposed?: boolean;
}

const numberOf = (encf: string) => Number(encf.slice(3));

/** A number's state before DGII is asked: already settled (voided or refused), or to void. */
export async function judge(
  env: Env,
  company: Company,
  deviceId: string,
  n: GivenUpNumber,
): Promise<GivenUpResult | null> {
  const refused = (code: string, message: string): GivenUpResult => ({
    ...n,
    anulado: false,
    replayed: false,
    error: { code, message },
  });
  const check = await issuerLedger(env, company.id).voiding().givenUpCheck(deviceId, n.tipoeCF, numberOf(n.encf));
  if (check.voided) return { ...n, anulado: true, replayed: true };
  if (!check.ownLease) return refused("encf_not_leased", `${n.encf} is not inside one of this device's leases.`);
  for (const month of check.months) {
    const held = await receiptMonth(env, company.id, month).receipts().receiptsIn(n.tipoeCF, n.encf, n.encf);
    if (held.length) return refused("encf_used", `${n.encf} holds a receipt; a receipt is never voided this way.`);
  }
  return null;
}

/**
 * Voids what can be voided of a device's given-up numbers (confirmed proposals) in one ANECF and
 * answers each number, in the order given (a number named twice is answered twice). A number
 * already voided answers so; one outside the device's leases or holding a receipt is refused. DGII
 * unreachable is thrown (503): nothing was voided, confirming again retries.
 */
export async function voidGivenUpNumbers(
  env: Env,
  company: Company,
  deviceId: string,
  numbers: GivenUpNumber[],
  now: Date,
): Promise<{ results: GivenUpResult[]; auditEvent?: { code: string; detail: string } }> {
  const distinct = [...new Map(numbers.map((n) => [n.encf, n])).values()];
  const judged = new Map<string, GivenUpResult>();
  const toVoid: GivenUpNumber[] = [];
  for (const n of distinct) {
    const settled = await judge(env, company, deviceId, n);
    if (settled) judged.set(n.encf, settled);
    else toVoid.push(n);
  }
  let auditEvent: { code: string; detail: string } | undefined;
  if (toVoid.length) {
    const rangos: VoidRange[] = toVoid.map((n) => ({ tipoeCF: n.tipoeCF, desde: n.encf, hasta: n.encf }));
    const voided = await voidOrRefusals(env, company, rangos, now, deviceId);
    auditEvent = voided.auditEvent;
    for (const [i, n] of toVoid.entries()) judged.set(n.encf, { ...n, replayed: false, ...voided.outcome[i]! });
  }
  return { results: numbers.map((n) => judged.get(n.encf)!), ...(auditEvent ? { auditEvent } : {}) };
}

type RangeOutcome = Pick<GivenUpResult, "anulado" | "error">;

/**
 * The ANECF for the ranges, read per range. A refusal naming ranges (`/rangos/{i}`: a number used
 * meanwhile, or DGII saying it is used) is those ranges' own answer; the others were not voided
 * this time and go again. Any other problem (DGII unreachable) is thrown.
 */
async function voidOrRefusals(
  env: Env,
  company: Company,
  rangos: VoidRange[],
  now: Date,
  deviceId: string,
): Promise<{ outcome: RangeOutcome[]; auditEvent?: { code: string; detail: string } }> {
  try {
    const { answer, auditEvent } = await voidRanges(env, company, rangos, now, deviceId);
    const outcome = answer.rangos.map(
      (r): RangeOutcome =>
        r.anulado === true
          ? { anulado: true }
          : {
              anulado: false,
              ...(r.anulado === false
                ? { error: { code: "encf_used", message: answer.mensajes.join("; ") || "DGII did not void it." } }
                : {}),
            },
    );
    return { outcome, ...(auditEvent ? { auditEvent } : {}) };
  } catch (error) {
    const named = problemOf(error)?.init.errors ?? [];
    const byRange = new Map(named.flatMap((e) => (/^\/rangos\/\d+$/.test(e.path) ? [[e.path, e]] : [])));
    if (!byRange.size) throw error;
    const outcome = rangos.map((_, i): RangeOutcome => {
      const e = byRange.get(`/rangos/${i}`);
      return e ? { anulado: false, error: { code: e.code, message: e.message } } : { anulado: false };
    });
    return { outcome };
  }
}
