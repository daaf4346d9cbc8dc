import { buildAnecf, formatDgiiDateTime, signEcfXml, type TipoeCF } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { DgiiError } from "../dgii/errors.ts";
import { dgiiClientFor, signerFor } from "../dgii/for-company.ts";
import { ApiProblem } from "../errors/problem.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { encfOf as formatEncf } from "../ledger/issuer/encf-allocation.ts";
import type { Receipt } from "../ledger/rows.ts";

/** One range of a voiding request, as the client sent it. */
export interface VoidRange {
  tipoeCF: string;
  desde: string;
  hasta: string;
}

export type VoidProblem = {
  path: string;
  /** invalid_range (400); sequence_missing, encf_out_of_range, range_gap (422); encf_used, encf_leased, encf_busy (409). */
  code: string;
  message: string;
};

const numberOf = (encf: string) => Number(encf.slice(3));
const numberRange = (r: VoidRange) => ({ tipoeCF: r.tipoeCF, from: numberOf(r.desde), to: numberOf(r.hasta) });
const unsent = (r: Receipt) => r.sendAttempts === 0 && (r.status === "signed" || r.status === "contingency");

/**
 * Everything that can be said about the ranges before DGII is asked: well formed, inside the
 * authorised range, contiguous with the unused tail (a range starting above `next_number` would
 * skip the numbers in between without voiding them), not leased to a device (but `ownDevice`,
 * voiding the numbers it gave up inside its own leases), and holding no number that was sent to
 * DGII or judged.
 */
export async function checkVoidRanges(
  env: Env,
  companyId: string,
  rangos: VoidRange[],
  ownDevice?: string,
): Promise<VoidProblem[]> {
  const problems: VoidProblem[] = [];
  for (const [i, r] of rangos.entries()) {
    const path = `/rangos/${i}`;
    const from = numberOf(r.desde);
    const to = numberOf(r.hasta);
    if (r.desde.slice(1, 3) !== r.tipoeCF || r.hasta.slice(1, 3) !== r.tipoeCF || from > to || from < 1) {
      problems.push({ path, code: "invalid_range", message: `The range must be of type ${r.tipoeCF}, from ≤ to.` });
      continue;
    }
    const overlapping = rangos.findIndex(
      (o, j) => j < i && o.tipoeCF === r.tipoeCF && numberOf(o.desde) <= to && numberOf(o.hasta) >= from,
    );
    if (overlapping >= 0) {
      problems.push({ path, code: "invalid_range", message: `Overlaps /rangos/${overlapping}.` });
      continue;
    }
    const { sequence, leases, months } = await issuerLedger(env, companyId)
      .voiding()
      .voidRangeCheck(r.tipoeCF, from, to, ownDevice);
    if (!sequence) {
      problems.push({ path, code: "sequence_missing", message: `No authorised e-NCF range for type ${r.tipoeCF}.` });
      continue;
    }
    if (from < sequence.rangeFrom || to > sequence.rangeTo) {
      problems.push({
        path,
        code: "encf_out_of_range",
        message: `Outside the authorised range ${formatEncf(r.tipoeCF, sequence.rangeFrom)}–${formatEncf(r.tipoeCF, sequence.rangeTo)}.`,
      });
      continue;
    }
    if (from > sequence.nextNumber) {
      problems.push({
        path,
        code: "range_gap",
        message: `The unused numbers start at ${formatEncf(r.tipoeCF, sequence.nextNumber)}; a range starting above it would skip the numbers in between without voiding them. Start the range there.`,
      });
      continue;
    }
    for (const lease of leases) {
      problems.push({
        path,
        code: "encf_leased",
        message: `${formatEncf(r.tipoeCF, lease.rangeFrom)}–${formatEncf(r.tipoeCF, lease.rangeTo)} is leased to a point-of-sale device, which may still use it offline.`,
      });
    }
    for (const receipt of await receiptsIn(env, companyId, r, months)) {
      if (!unsent(receipt))
        problems.push({
          path,
          code: "encf_used",
          message: `${receipt.encf} was already sent to DGII (or voided) and cannot be voided.`,
        });
    }
  }
  return problems;
}

/** The receipts of a range, from every month object the index names for it (asked in parallel). */
async function receiptsIn(env: Env, companyId: string, r: VoidRange, months: string[]): Promise<Receipt[]> {
  const found = await Promise.all(
    months.map((month) => receiptMonth(env, companyId, month).receipts().receiptsIn(r.tipoeCF, r.desde, r.hasta)),
  );
  return found.flat();
}

/** What a voiding holds while DGII is asked: the tail it took out of the sequence, the receipts it claimed. */
export interface VoidHold {
  /** Per range (same order): the `next_number` before and after, or null when the range lies wholly below it. */
  tails: ({ before: number; after: number } | null)[];
  /** Per range: the signed-but-unsent receipts it claimed (their id and the month object holding them). */
  claimed: { id: string; month: string }[][];
}

/**
 * Takes the ranges' unused tails out of the sequence in one step of the issuer object
 * (compare-and-set on `next_number`, so no request or device can be handed those numbers
 * meanwhile) and claims every signed-but-unsent receipt in them (the queue and the sweeper then
 * leave them alone). Returns the problems instead when something changed since the checks;
 * nothing is held then.
 */
export async function holdForVoiding(
  env: Env,
  companyId: string,
  rangos: VoidRange[],
): Promise<{ hold: VoidHold } | { problems: VoidProblem[] }> {
  const hold: VoidHold = { tails: [], claimed: [] };
  const problems: VoidProblem[] = [];
  const held = await issuerLedger(env, companyId)
    .voiding()
    .advance({ step: "hold", ranges: rangos.map(numberRange) });
  for (const [i, r] of rangos.entries()) {
    const range = held[i];
    if (range === "gap") {
      problems.push({
        path: `/rangos/${i}`,
        code: "range_gap",
        message: "The unused numbers moved; send the request again.",
      });
      break;
    }
    if (!range) break;
    hold.tails.push(range.tail);
    const ids: { id: string; month: string }[] = [];
    hold.claimed.push(ids);
    for (const receipt of await receiptsIn(env, companyId, r, range.months)) {
      if (!unsent(receipt)) {
        problems.push({
          path: `/rangos/${i}`,
          code: "encf_used",
          message: `${receipt.encf} was already sent to DGII and cannot be voided.`,
        });
        continue;
      }
      const month = receipt.issueDate.slice(0, 7);
      const claimed = await receiptMonth(env, companyId, month).receipts().claim(receipt.id);
      if (!claimed) {
        problems.push({
          path: `/rangos/${i}`,
          code: "encf_busy",
          message: `${receipt.encf} is being transmitted right now; ask again in a minute.`,
        });
        continue;
      }
      ids.push({ id: claimed.id, month });
      // Sent between the read and the claim: it is used now.
      if (!unsent(claimed))
        problems.push({
          path: `/rangos/${i}`,
          code: "encf_used",
          message: `${receipt.encf} was already sent to DGII and cannot be voided.`,
        });
    }
  }
  if (problems.length) {
    await letGo(
      env,
      companyId,
      rangos,
      hold,
      rangos.map(() => true),
    );
    return { problems };
  }
  return { hold };
}

/**
 * Gives back what was held for the ranges flagged in `giveBack`: the claims always, and the tail
 * when nobody took a number after it (last range first, so consecutive ranges unwind in order).
 * A tail that cannot be given back stays out of the sequence below `next_number`, where a later
 * voiding can still reach it.
 */
export async function letGo(
  env: Env,
  companyId: string,
  rangos: VoidRange[],
  hold: VoidHold,
  giveBack: boolean[],
): Promise<void> {
  const given = hold.tails.map((_, i) => i).filter((i) => giveBack[i]);
  await Promise.all(
    given
      .flatMap((i) => hold.claimed[i] ?? [])
      .map((c) => receiptMonth(env, companyId, c.month).receipts().release(c.id)),
  );
  const tails = given.reverse().flatMap((i) => {
    const tail = hold.tails[i];
    return tail ? [{ tipoeCF: rangos[i]!.tipoeCF, tail }] : [];
  });
  if (tails.length) await issuerLedger(env, companyId).voiding().advance({ step: "giveBack", tails });
}

/** The claimed receipts of the ranges DGII voided become Anulado, and are never sent. */
export async function markVoided(
  env: Env,
  companyId: string,
  claimed: { id: string; month: string }[],
): Promise<number> {
  const byMonth = new Map<string, string[]>();
  for (const { id, month } of claimed) byMonth.set(month, [...(byMonth.get(month) ?? []), id]);
  const counts = await Promise.all(
    [...byMonth].map(([month, ids]) => receiptMonth(env, companyId, month).receipts().markVoided(ids)),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * Which ranges DGII refused in a partial answer (codigo "2"): those its messages name, by a bound
 * or by a used e-NCF inside them. Null when the messages name none, so nothing can be attributed.
 */
export function refusedRanges(rangos: VoidRange[], mensajes: readonly string[]): boolean[] | null {
  const named = mensajes.flatMap((m) => m.toUpperCase().match(/E\d{12}/g) ?? []);
  if (!named.length) return null;
  return rangos.map((r) => named.some((encf) => encf.slice(1, 3) === r.tipoeCF && encf >= r.desde && encf <= r.hasta));
}

/** 400 for a malformed request, 409 for numbers that are used, leased or busy, 422 for the rest. */
function voidRefusal(problems: VoidProblem[]): ApiProblem {
  const code = problems.some((p) => p.code === "invalid_range")
    ? "validation_failed"
    : problems.some((p) => ["encf_used", "encf_leased", "encf_busy"].includes(p.code))
      ? "conflict"
      : "unprocessable";
  return new ApiProblem(code, { detail: "Some ranges cannot be voided; nothing was sent to DGII.", errors: problems });
}

export interface VoidOutcome {
  answer: {
    codigo: string;
    nombre: string;
    mensajes: string[];
    /** Numbers in the ranges DGII voided, and of those the signed receipts that became Anulado: each count named for what it counts. */
    numbersVoided: number;
    receiptsVoided: number;
    rangos: (VoidRange & { anulado: boolean | null })[];
  };
  /** DGII voided only part of the request: the issuer's audit log says which part was not. */
  auditEvent?: { code: string; detail: string };
}

/**
 * POST /fe/anulacion: checks the ranges, holds their unused tails and unsent receipts, signs and
 * sends the ANECF, and settles what DGII voided (Anulado receipts, ranges remembered) and what it
 * did not (held numbers and receipts given back). A client mistake or DGII's refusal is thrown.
 * `ownDevice`: a till voiding the numbers it gave up, which lie inside its own leases.
 */
export async function voidRanges(
  env: Env,
  company: Company,
  rangos: VoidRange[],
  now: Date,
  ownDevice?: string,
): Promise<VoidOutcome> {
  const checked = await checkVoidRanges(env, company.id, rangos, ownDevice);
  if (checked.length) throw voidRefusal(checked);
  const signer = await signerFor(env, company);

  const held = await holdForVoiding(env, company.id, rangos);
  if ("problems" in held) throw voidRefusal(held.problems);
  const { hold } = held;
  const answer = await sendAnecf(env, company, signer, rangos, hold, now);
  const { codigo, mensajes, outcome } = dgiiVerdict(rangos, answer);
  const { receiptsVoided, numbersVoided } = await settleVoiding(env, company.id, rangos, hold, outcome);
  const rangosAnswer = rangos.map((r, i) => ({ ...r, anulado: outcome[i]! }));
  const notVoided = rangosAnswer.filter((r) => r.anulado !== true).map((r) => `${r.desde}–${r.hasta}`);

  if (!outcome.some((o) => o !== false)) {
    throw new ApiProblem("conflict", {
      detail: `DGII refused the ANECF (codigo ${codigo} ${answer.nombre}): ${mensajes.join("; ")}. Nothing was voided; the ranges' unused numbers stay out of the sequence.`,
      errors: rangos.map((_, i) => ({
        path: `/rangos/${i}`,
        code: "encf_used",
        message: mensajes.join("; ") || "Refused by DGII.",
      })),
    });
  }
  return {
    answer: { codigo, nombre: answer.nombre, mensajes, numbersVoided, receiptsVoided, rangos: rangosAnswer },
    ...(notVoided.length
      ? {
          auditEvent: {
            code: "anecf_partial",
            detail: `DGII did not void ${notVoided.join(", ")} (codigo ${codigo} ${answer.nombre}): ${mensajes.join("; ")}`,
          },
        }
      : {}),
  };
}

/** DGII's answer to an ANECF, as the client returns it. */
type AnecfAnswer = { codigo: string; nombre: string; mensajes: string[] };

/** The ANECF's DetalleAnulacion: the ranges grouped by type, in the order the types first appear. */
function anecfDetail(rangos: VoidRange[]) {
  return Object.values(
    rangos.reduce<
      Record<
        string,
        {
          TipoeCF: TipoeCF;
          TablaRangoSecuenciasAnuladaseNCF: { SecuenciaeNCFDesde: string; SecuenciaeNCFHasta: string }[];
        }
      >
    >((acc, r) => {
      (acc[r.tipoeCF] ??= {
        TipoeCF: r.tipoeCF as TipoeCF,
        TablaRangoSecuenciasAnuladaseNCF: [],
      }).TablaRangoSecuenciasAnuladaseNCF.push({
        SecuenciaeNCFDesde: r.desde,
        SecuenciaeNCFHasta: r.hasta,
      });
      return acc;
    }, {}),
  );
}

/**
 * Builds, signs and sends the ANECF. When it fails, the held receipts are let go before the
 * failure is thrown (as a problem when DGII is unavailable or refused it), and so are the held
 * numbers, unless the ANECF may have reached DGII (no answer: a timeout, a reset): DGII may have
 * voided them, so they stay out of the sequence, where sending the same request again reaches them.
 */
async function sendAnecf(
  env: Env,
  company: Company,
  signer: Awaited<ReturnType<typeof signerFor>>,
  rangos: VoidRange[],
  hold: VoidHold,
  now: Date,
): Promise<AnecfAnswer> {
  try {
    const xml = buildAnecf({
      RncEmisor: company.rnc,
      FechaHoraAnulacioneNCF: formatDgiiDateTime(now),
      DetalleAnulacion: anecfDetail(rangos),
    });
    const signed = await signEcfXml(xml, signer.key, signer.certificateDer);
    return await dgiiClientFor(env, company, signer).anularRangos(signed, `${company.rnc}ANECF${now.getTime()}.xml`);
  } catch (error) {
    const mayHaveVoided = error instanceof DgiiError && error.isUnavailable && error.mayHaveBeenRecorded;
    await letGo(
      env,
      company.id,
      rangos,
      mayHaveVoided ? { tails: hold.tails.map(() => null), claimed: hold.claimed } : hold,
      rangos.map(() => true),
    );
    if (mayHaveVoided)
      throw new ApiProblem("dgii_unavailable", {
        detail: `DGII did not answer the ANECF (${error.message}); it may have voided the ranges, so their unused numbers stay out of the sequence. Send the same request again to learn DGII's answer.`,
      });
    if (error instanceof DgiiError && error.isUnavailable)
      throw new ApiProblem("dgii_unavailable", { detail: `ANECF not sent: ${error.message}` });
    if (error instanceof DgiiError)
      throw new ApiProblem("unprocessable", {
        detail: `DGII refused the ANECF: ${error.message}`,
        errors: error.mensajes.map((m) => ({ path: "", code: m.codigo ?? "dgii", message: m.valor })),
      });
    throw error;
  }
}

/** DGII's answer read per range: its code, its messages as strings, and each range's outcome. */
function dgiiVerdict(
  rangos: VoidRange[],
  answer: AnecfAnswer,
): { codigo: string; mensajes: string[]; outcome: (boolean | null)[] } {
  const mensajes = Array.isArray(answer.mensajes)
    ? answer.mensajes.map(String)
    : answer.mensajes
      ? [String(answer.mensajes)]
      : [];
  const codigo = String(answer.codigo);
  // Per range: true voided, false refused, null unknown (a partial answer naming no range).
  const refused =
    codigo === "1"
      ? rangos.map(() => false)
      : codigo === "2"
        ? refusedRanges(rangos, mensajes)
        : rangos.map(() => true);
  const outcome = rangos.map((_, i) => (refused ? !refused[i] : null));
  return { codigo, mensajes, outcome };
}

/**
 * Settles the hold by DGII's outcome per range: releases what is not known to be voided, marks the
 * voided ranges' claimed receipts Anulado and tells the ledger which ranges were voided.
 */
async function settleVoiding(
  env: Env,
  companyId: string,
  rangos: VoidRange[],
  hold: VoidHold,
  outcome: (boolean | null)[],
): Promise<{ receiptsVoided: number; numbersVoided: number }> {
  // Claims of anything not known to be voided are released: those receipts will be sent.
  await letGo(
    env,
    companyId,
    rangos,
    { tails: hold.tails.map(() => null), claimed: hold.claimed },
    outcome.map((o) => o !== true),
  );
  const receiptsVoided = await markVoided(env, companyId, hold.claimed.filter((_, i) => outcome[i] === true).flat());
  const numbersVoided = rangos
    .filter((_, i) => outcome[i] === true)
    .reduce((n, r) => n + Number(r.hasta.slice(3)) - Number(r.desde.slice(3)) + 1, 0);
  const voided = rangos.filter((_, i) => outcome[i] === true).map(numberRange);
  if (voided.length) await issuerLedger(env, companyId).voiding().advance({ step: "voided", ranges: voided });
  return { receiptsVoided, numbersVoided };
}
