import { buildRfce, signEcfXml, xmlToEcf } from "@ecf/shared";
import { companyById } from "../db/companies.ts";
import type { ReceiptStep } from "../ledger/month/receipt-steps.ts";
import type { Receipt } from "../ledger/rows.ts";
import type { Company } from "../db/tables.ts";
import { sleep, type DgiiClient, type DgiiResult } from "../dgii/client.ts";
import { DgiiError, type DgiiMessage } from "../dgii/errors.ts";
import { dgiiClientFor, signerFor } from "../dgii/for-company.ts";
import { isFinal } from "../ledger/month/estado.ts";
import type { PhaseTimes } from "./timing.ts";

/**
 * Where a transmission records each step: the receipt's month object, through RPC from a request,
 * or directly from inside the object when its alarm transmits. The object decides what a step
 * changes and leads to (after-dgii/follow-up.ts).
 */
export interface ReceiptStore {
  advance(id: string, step: ReceiptStep): Promise<Receipt>;
}

/**
 * How long after a send whose fate is unknown (timeout, reset, a torn answer) DGII may still record
 * it: until then an empty consultatrackids (consultaestado for an RFCE) proves nothing, so the
 * receipt is not sent again. A send DGII answered and refused (503 …) is not counted at all.
 */
const SEND_SETTLE_MS = 60_000;

/** Poll delays (ms) while a track id is in process; DGII_POLL_DELAYS_MS overrides (tests). */
export function pollDelays(env: Env): number[] {
  const raw: string | undefined = env.DGII_POLL_DELAYS_MS;
  const parsed = raw
    ?.split(",")
    .map(Number)
    .filter((n) => Number.isFinite(n) && n >= 0);
  return parsed?.length ? parsed : [1000, 2000, 4000, 8000];
}

/** Why a receipt stays in contingency when DGII's status service says its environment is down. */
const DGII_REPORTS_UNAVAILABLE = "DGII's status service reports the environment unavailable";

/** The messages of a receipt left in contingency because DGII reports itself unavailable. */
export const UNAVAILABLE_MENSAJES: readonly DgiiMessage[] = [{ codigo: null, valor: DGII_REPORTS_UNAVAILABLE }];

/** `dgiiMensajes` of a receipt left in contingency because DGII reports itself unavailable. */
export const unavailableMensajes = () => messagesJson(UNAVAILABLE_MENSAJES);

const messagesJson = (mensajes: readonly DgiiMessage[]) =>
  JSON.stringify(mensajes.map((m) => ({ codigo: m.codigo, valor: m.valor })));

function recordResult(store: ReceiptStore, receipt: Receipt, result: DgiiResult): Promise<Receipt> {
  const mensajes = messagesJson(result.mensajes);
  return store.advance(receipt.id, {
    step: "judged",
    codigo: result.codigo,
    trackId: result.trackId ?? null,
    mensajes,
  });
}

/** DGII answered an error about the document itself (4xx): the receipt is rejected as sent. */
function recordHttpRejection(store: ReceiptStore, receipt: Receipt, error: DgiiError): Promise<Receipt> {
  return store.advance(receipt.id, {
    step: "refused",
    mensajes: messagesJson(
      error.mensajes.length ? error.mensajes : [{ codigo: String(error.status ?? ""), valor: error.message }],
    ),
  });
}

async function pollTrackId(
  store: ReceiptStore,
  client: DgiiClient,
  receipt: Receipt,
  delays: number[],
  times?: PhaseTimes,
): Promise<Receipt> {
  for (const delay of delays) {
    if (times) await times.time("dgii-wait", () => sleep(delay));
    else await sleep(delay);
    const result = await client.consultaResultado(receipt.trackId!);
    if (result.codigo === 3) continue;
    if (result.codigo === 0) break; // DGII does not know it yet: keep polling later
    return recordResult(store, receipt, result);
  }
  // Still in process: the alarm asks again.
  return store.advance(receipt.id, { step: "sent", trackId: receipt.trackId! });
}

/** The RFCE summary of an E32 under 250,000, signed with the issuer's key. */
async function signedRfceFor(
  signedEcf: string,
  receipt: Receipt,
  key: CryptoKey,
  certificateDer: Uint8Array,
): Promise<string> {
  const ecf = xmlToEcf(signedEcf);
  return signEcfXml(buildRfce({ ecf, CodigoSeguridadeCF: receipt.securityCode }), key, certificateDer);
}

export interface TransmitOptions {
  /** Poll delays to spend inside this call (a request polls briefly, the alarm once per run). */
  delays: number[];
  /** Collects the DGII round trips (`dgii`) and the waits between polls (`dgii-wait`). */
  times?: PhaseTimes;
  now?: Date;
  /** The issuer, when the caller has it already (a request); else it is read from D1. */
  company?: Company;
  /** The caller asked DGII's status service a moment ago and it said up: not asked again. */
  dgiiUp?: boolean;
}

/**
 * Moves one receipt forward with DGII, never sending it twice: a receipt that may already have
 * been sent (sendAttempts > 0) is first looked up (consultatrackids, or consultaestado for an
 * RFCE) and only sent again when DGII has no trace of it. DGII being unreachable leaves it in
 * contingency for the month object's alarm.
 */
export async function transmitReceipt(
  env: Env,
  store: ReceiptStore,
  receipt: Receipt,
  signedXml: string,
  options: TransmitOptions,
): Promise<Receipt> {
  if (isFinal(receipt.status)) return receipt;
  const company = options.company ?? (await companyById(env, receipt.companyId));
  if (!company) throw new Error(`receipt ${receipt.id} has no company`);
  const signer = await signerFor(env, company);
  const times = options.times;
  const client = dgiiClientFor(env, company, signer, times && ((_what, ms) => times.add("dgii", ms)));
  let current = receipt;
  try {
    if (current.dgiiPath === "rfce") {
      if (current.sendAttempts > 0) {
        const known = await client.consultaEstado(current.encf, current.securityCode, current.rncComprador);
        if (known.codigo !== 0) return await recordResult(store, current, known);
        // Not found may only mean DGII is still taking the send that timed out: a second copy would
        // come back "ya fue utilizado" (rejected) while the first is accepted. Ask again later.
        if (sentMomentsAgo(current, options.now)) return current;
      }
      const rfce = await signedRfceFor(signedXml, current, signer.key, signer.certificateDer);
      if (!(options.dgiiUp || (await client.isAvailable())))
        throw new DgiiError("unreachable", null, [], DGII_REPORTS_UNAVAILABLE);
      const sent = await sendCounted(store, current, () => client.sendRfce(rfce, current.encf));
      return await recordResult(store, sent.receipt, sent.answer);
    }

    if (!current.trackId && current.sendAttempts > 0) {
      const known = await client.consultaTrackIds(current.encf);
      const latest = known[known.length - 1];
      if (latest) current = await store.advance(current.id, { step: "sent", trackId: latest.trackId });
      // The failed send was recorded (updatedAt) moments ago: it may still land. Ask again later.
      else if (sentMomentsAgo(current, options.now)) return current;
    }
    if (!current.trackId) {
      if (!(options.dgiiUp || (await client.isAvailable())))
        throw new DgiiError("unreachable", null, [], DGII_REPORTS_UNAVAILABLE);
      const sent = await sendCounted(store, current, () => client.sendEcf(signedXml, current.encf));
      current = await store.advance(current.id, { step: "sent", trackId: sent.answer });
    }
    return await pollTrackId(store, client, current, options.delays, times);
  } catch (thrown) {
    const error = thrown instanceof SendFailed ? thrown.cause : thrown;
    if (!(error instanceof DgiiError)) throw error;
    if (!error.isUnavailable) return recordHttpRejection(store, current, error);
    return store.advance(current.id, {
      step: "unreachable",
      mensajes: messagesJson([{ codigo: null, valor: error.message }]),
      // (A rejection of the document itself, a 4xx, is DGII's verdict above: it stays counted.)
      notTaken: thrown instanceof SendFailed && !error.mayHaveBeenRecorded,
    });
  }
}

/** A send this attempt counted failed: its cause says whether DGII may have recorded it. */
class SendFailed extends Error {
  constructor(override readonly cause: DgiiError) {
    super(cause.message);
  }
}

/**
 * One send of the document, counted before it goes out (write-ahead: a crash during the send leaves
 * it counted, so it is looked up before any resend). A failed send leaves as SendFailed, so the
 * attempt can take the count back when DGII answered that it did not take it: nothing can land
 * later, and the next attempt sends at once on the normal back-off instead of waiting out
 * SEND_SETTLE_MS and asking DGII first.
 */
async function sendCounted<T>(
  store: ReceiptStore,
  receipt: Receipt,
  send: () => Promise<T>,
): Promise<{ receipt: Receipt; answer: T }> {
  const counted = await store.advance(receipt.id, { step: "sending" });
  try {
    return { receipt: counted, answer: await send() };
  } catch (error) {
    throw error instanceof DgiiError ? new SendFailed(error) : error;
  }
}

/** The receipt's last send (its last change, `updatedAt`) is within SEND_SETTLE_MS: DGII may still record it. */
function sentMomentsAgo(receipt: Receipt, now = new Date()): boolean {
  return now.getTime() - Date.parse(receipt.updatedAt ?? receipt.createdAt) < SEND_SETTLE_MS;
}

/** Reads a receipt's signed XML from the archive. */
export async function archivedXml(env: Env, receipt: Receipt): Promise<string> {
  const object = await env.ARCHIVE.get(receipt.xmlKey);
  if (!object) throw new Error(`archived XML ${receipt.xmlKey} is missing`);
  return object.text();
}
