// A crédito fiscal invoice (E31) for a consumer receipt (E32), asked for by its buyer on the
// receipt's public page: the most common request at a Dominican counter, a customer with an RNC
// who paid as a consumer. DGII's format has the code for exactly that: CodigoModificacion 5
// "Referencia Factura Consumo Electrónica", which applies only to an E31 (formato-ecf note 81).
// The E31 copies the E32's lines and totals, names the buyer from DGII's taxpayer registry, and
// references the E32 (InformacionReferencia: NCFModificado, FechaNCFModificado). It is issued by
// the same path as every receipt (issuing/issue.ts), so it reaches DGII and the buyer (an
// electronic receiver in DGII's directory gets it delivered, another buyer by e-mail) like any E31.
//
// One E31 per E32, ever: the request claims an Idempotency-Key named after the E32 in the
// issuer's object, in the same write that numbers the E31 (ledger/idempotency.ts), so of two
// concurrent requests one numbers and the other is refused; once that key has expired, the E31
// itself (a receipt whose NCFModificado is the E32) refuses any later request.
import { dgiiDateOf, isValidCedula, isValidRnc, objAt, xmlToEcf, type JsonDocument } from "@ecf/shared";
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { issueReceipt } from "../issuing/issue.ts";
import { archivedXml } from "../issuing/transmit.ts";
import { acceptedNotesOf, writeAudit } from "../ledger/client.ts";
import type { Receipt } from "../ledger/rows.ts";
import { creditNoteTask } from "../ledger/month/task-types.ts";
import { lookupTaxpayer } from "../taxpayers/registry.ts";
import { issueE32CreditNote } from "./e32-credit-note.ts";
import type { PublicReceipt } from "./lookup.ts";

/** The Idempotency-Key an E32's crédito fiscal request claims. */
export const creditoFiscalKey = (e32: string) => `credito-fiscal:${e32}`;

const alreadyIssued = (e32: string, e31?: string) =>
  new ApiProblem("conflict", {
    detail: `A crédito fiscal invoice was already issued for ${e32}${e31 ? ` (${e31})` : ""}; there is one per consumer receipt.`,
    errors: [
      {
        path: "/encf",
        code: "already_issued",
        message: "Ya se emitió una factura de crédito fiscal para este comprobante.",
      },
    ],
  });

/** The buyer's RNC or cédula, well formed and active in DGII's registry: its legal name. */
async function buyerOf(env: Env, rnc: string): Promise<{ rnc: string; name: string }> {
  if (!isValidRnc(rnc) && !isValidCedula(rnc))
    throw new ApiProblem("invalid_rnc", {
      detail: `${rnc} is not an RNC or a cédula.`,
      errors: [
        { path: "/rncComprador", code: "invalid_rnc", message: "Escriba un RNC (9 dígitos) o una cédula (11)." },
      ],
    });
  const taxpayer = await lookupTaxpayer(env.DB, rnc);
  if (!taxpayer.active)
    throw new ApiProblem("unprocessable", {
      detail: `RNC ${rnc} is ${taxpayer.status} in DGII's registry: a crédito fiscal invoice needs an active taxpayer.`,
      errors: [
        { path: "/rncComprador", code: "inactive_taxpayer", message: `El RNC ${rnc} no está activo en la DGII.` },
      ],
    });
  return { rnc, name: taxpayer.legalName };
}

/** What the buyer gives: its RNC or cédula, and where the E31's printed copy goes. */
export interface CreditoFiscalAsk {
  rncComprador: string;
  email?: string | undefined;
}

/**
 * An E31 of the E32's lines and totals, to `buyer`, referencing it with CodigoModificacion 5. With
 * the buyer's e-mail as CorreoComprador, the existing mail path (after-dgii/email.ts) sends it the
 * printed copy when it is not an electronic receiver.
 */
export function creditoFiscalRequest(
  e32: JsonDocument,
  receipt: Receipt,
  buyer: { rnc: string; name: string; email?: string | undefined },
) {
  const idDoc = (objAt(e32, "Encabezado", "IdDoc") ?? {}) as Record<string, unknown>;
  const encabezado = (objAt(e32, "Encabezado") ?? {}) as Record<string, unknown>;
  const keep = (names: string[]) =>
    Object.fromEntries(names.filter((n) => idDoc[n] !== undefined).map((n) => [n, idDoc[n]]));
  return {
    Encabezado: {
      IdDoc: { TipoeCF: "31", ...keep(["IndicadorMontoGravado", "TipoIngresos", "TipoPago", "TablaFormasPago"]) },
      Comprador: {
        RNCComprador: buyer.rnc,
        RazonSocialComprador: buyer.name,
        ...(buyer.email ? { CorreoComprador: buyer.email } : {}),
      },
      Totales: encabezado.Totales,
    },
    DetallesItems: e32.DetallesItems,
    InformacionReferencia: {
      NCFModificado: receipt.encf,
      FechaNCFModificado: dgiiDateOf(receipt.issueDate),
      CodigoModificacion: "5",
    },
  };
}

/** The E32 may become an E31: a consumer receipt DGII accepted. */
function checkConsumerReceipt(receipt: Receipt) {
  if (receipt.tipoeCF !== "32")
    throw new ApiProblem("unprocessable", {
      detail: "Only a consumer receipt (E32) becomes a crédito fiscal invoice (CodigoModificacion 5).",
      errors: [
        {
          path: "/encf",
          code: "not_consumer_receipt",
          message: "Solo una factura de consumo se cambia por crédito fiscal.",
        },
      ],
    });
  if (receipt.status !== "accepted" && receipt.status !== "conditional")
    throw new ApiProblem("conflict", {
      detail: "The consumer receipt is not accepted by DGII yet; ask again once it is.",
      errors: [{ path: "/encf", code: "not_accepted", message: "La DGII aún no ha aceptado este comprobante." }],
    });
}

/** An E31 DGII accepted for the E32, if there is one. */
async function acceptedE31(env: Env, receipt: Receipt) {
  return (await acceptedNotesOf(env, receipt)).find((note) => note.tipoeCF === "31");
}

/** The E32 may become an E31 (an accepted E32, none issued yet) and the buyer is an active taxpayer. */
export async function checkCreditoFiscal(env: Env, receipt: Receipt, rncComprador: string) {
  checkConsumerReceipt(receipt);
  const earlier = await acceptedE31(env, receipt);
  if (earlier) throw alreadyIssued(receipt.encf, earlier.encf);
  return buyerOf(env, rncComprador);
}

/** What became of the E34 voiding the E32: issued (its e-NCF), or owed to the month object's task. */
export type CreditNoteState = { state: "issued"; e34: string } | { state: "owed"; e34: null };

/**
 * The exchange of an E32 for an E31: issued now (and, as the issuer chose, its credit note), or
 * the E31 issued before for it (`existing`; null when only a stored answer of its key says so).
 */
export type Exchange = { issued: Receipt; creditNote: CreditNoteState | null } | { existing: Receipt | null };

/**
 * Issues the E31 for `found`'s E32 unless one exists (refused: not an E32, not accepted by DGII,
 * or an inactive buyer), then, when the issuer chose so, the credit note voiding the E32
 * (e32-credit-note.ts). That note is owed from the E31's own record: the month object queues its
 * task in the same write, so a note this request fails to issue (or dies before) is issued later.
 */
export async function exchangeE32(env: Env, found: PublicReceipt, ask: CreditoFiscalAsk, now: Date): Promise<Exchange> {
  const { company, receipt } = found;
  checkConsumerReceipt(receipt);
  const earlier = await acceptedE31(env, receipt);
  if (earlier) return { existing: earlier };
  const buyer = { ...(await buyerOf(env, ask.rncComprador)), email: ask.email };
  const e32 = xmlToEcf(await archivedXml(env, receipt));
  const body = creditoFiscalRequest(e32, receipt, buyer);
  const voids = company.creditoFiscalE32 === "credit_note";
  const outcome = await issueReceipt(env, company, body, now, {
    idempotencyKey: creditoFiscalKey(receipt.encf),
    ...(voids ? { followUp: (e31: string) => [creditNoteTask(company.id, receipt.encf, e31)] } : {}),
  });
  if ("stored" in outcome) return { existing: null };
  if (outcome.replayed) return { existing: outcome.receipt };
  const creditNote = voids ? await voidE32(env, company, e32, receipt, outcome.receipt.encf, now) : null;
  return { issued: outcome.receipt, creditNote };
}

/** The at-once path: the E31 issued now, or refused when one was issued before. */
export async function issueCreditoFiscal(env: Env, found: PublicReceipt, ask: CreditoFiscalAsk, now: Date) {
  const exchange = await exchangeE32(env, found, ask, now);
  if ("existing" in exchange) throw alreadyIssued(found.receipt.encf, exchange.existing?.encf);
  return exchange.issued;
}

/**
 * The E34 voiding the exchanged E32, tried right after the E31. The E31 is already issued: a
 * failed credit note neither undoes it nor fails the buyer's request; it stays owed (the task the
 * E31's record queued issues it under the same key) and is written in the audit log.
 */
async function voidE32(
  env: Env,
  company: Company,
  e32: JsonDocument,
  receipt: Receipt,
  e31: string,
  now: Date,
): Promise<CreditNoteState> {
  try {
    const note = await issueE32CreditNote(env, company, e32, receipt, e31, now);
    if ("stored" in note) return { state: "owed", e34: null };
    return { state: "issued", e34: note.receipt.encf };
  } catch (error) {
    const detail = `${receipt.encf} (replaced by ${e31}), retried later: ${error instanceof Error ? error.message : String(error)}`;
    await writeAudit(env, company.id, {
      actor: null,
      action: "E34 voiding an E32 exchanged for crédito fiscal",
      code: "credit_note_owed",
      status: error instanceof ApiProblem ? error.status : 500,
      detail: detail.slice(0, 1000),
      requestId: "credito-fiscal",
    }).catch(() => undefined);
    return { state: "owed", e34: null };
  }
}
