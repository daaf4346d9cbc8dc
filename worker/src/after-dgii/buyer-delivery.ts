// Delivery of an accepted e-CF to its buyer (DGII's emisor-receptor standard): if the buyer is an
// electronic receiver in DGII's directory, POST the signed e-CF to its recepción service, check
// the ARECF it answers (signature, our RNC, the e-NCF, Estado 0 or 1 with its motivo) and archive
// it beside the receipt. A receiver that fails or cannot be reached is tried again with back-off
// for 72 hours; a buyer not in the directory gets the printed copy instead (by e-mail).
import { parseArecf, verifyXml, type ArecfDocument } from "@ecf/shared";
import { archiveImmutable } from "../archive/r2.ts";
import { companyById } from "../db/companies.ts";
import { DirectoryCache } from "../dgii/directory-cache.ts";
import { dgiiClientFor, dgiiDirectoryTtls, dgiiTimeoutMs, signerFor } from "../dgii/for-company.ts";
import { archivedXml } from "../issuing/transmit.ts";
import { companionKey } from "../receiving/archive-keys.ts";
import { lookUpTaxpayer, type DirectoryEntry } from "../dgii/directory.ts";
import { ReceiverClient } from "../receiving/receiver-client.ts";
import type { Company } from "../db/tables.ts";
import { correoComprador } from "./email.ts";
import {
  emailTask,
  type BuyerDeliveryPayload,
  type TaskContext,
  type TaskOutcome,
} from "../ledger/month/task-types.ts";
import { outboundPolicy } from "../outbound/url-policy.ts";

/** Directory answers are kept a while per isolate (dgii/directory-cache.ts). */
const directory = new DirectoryCache();

async function directoryEntry(env: Env, company: Company, rnc: string): Promise<DirectoryEntry | undefined> {
  const key = `${company.dgiiEnvironment}|${rnc}`;
  const cached = directory.lookup(key, Date.now());
  if (cached) return cached.entry;
  const entry = await lookUpTaxpayer(dgiiClientFor(env, company, await signerFor(env, company)), rnc);
  directory.remember(key, entry, Date.now(), dgiiDirectoryTtls(env));
  return entry;
}

/** The ARECF's problems as an answer to this receipt, or null when it is the buyer's word on it. */
async function arecfProblem(
  xml: string,
  arecf: ArecfDocument,
  company: Company,
  encf: string,
  rncComprador: string,
): Promise<string | null> {
  const verdict = await verifyXml(xml);
  if (!verdict.ok) return `the ARECF's signature does not verify: ${verdict.message}`;
  if (arecf.RNCEmisor !== company.rnc) return `the ARECF names RNCEmisor ${arecf.RNCEmisor}, not ${company.rnc}`;
  if (arecf.eNCF !== encf) return `the ARECF is about ${arecf.eNCF}, not ${encf}`;
  if (arecf.RNCComprador !== rncComprador)
    return `the ARECF comes from ${arecf.RNCComprador}, not the buyer ${rncComprador}`;
  if (arecf.Estado !== "0" && arecf.Estado !== "1") return `the ARECF's Estado is ${arecf.Estado}`;
  if (arecf.Estado === "1" && !arecf.CodigoMotivoNoRecibido)
    return "the ARECF says not received without CodigoMotivoNoRecibido";
  return null;
}

export async function deliverToBuyer(
  payload: BuyerDeliveryPayload,
  context: TaskContext,
  pastDeadline: boolean,
): Promise<TaskOutcome> {
  const receipt = context.receipt(payload.encf);
  if (!receipt?.rncComprador || receipt.deliveryStatus !== "pendiente")
    return { status: "done", result: { skipped: "nothing to deliver" } };
  const company = await companyById(context.env, receipt.companyId);
  if (!company) return { status: "failed", result: { error: "the issuer no longer exists" } };
  const attempt: DeliveryAttempt = {
    context,
    receipt,
    rncComprador: receipt.rncComprador,
    company,
    attempts: receipt.deliveryAttempts + 1,
    pastDeadline,
  };
  try {
    const entry = await directoryEntry(context.env, company, receipt.rncComprador);
    if (!entry?.urlRecepcion) return await printedCopyInstead(attempt);
    return await sendToReceiver(attempt, entry.urlRecepcion, entry.urlOpcional);
  } catch (error) {
    return failedAttempt(attempt, (error as Error).message);
  }
}

/** One attempt at delivering a receipt to the buyer it names. */
interface DeliveryAttempt {
  context: TaskContext;
  receipt: NonNullable<ReturnType<TaskContext["receipt"]>>;
  rncComprador: string;
  company: Company;
  /** Counting this one. */
  attempts: number;
  /** The last attempt: a failure is final. */
  pastDeadline: boolean;
}

/** A failed attempt is tried again, until the deadline makes the failure final. */
function failedAttempt(attempt: DeliveryAttempt, detail: string): TaskOutcome {
  const { context, receipt, pastDeadline } = attempt;
  context.recordDelivery(receipt.id, {
    deliveryAttempts: attempt.attempts,
    deliveryDetail: detail.slice(0, 500),
    ...(pastDeadline ? { deliveryStatus: "fallido", deliveryAt: context.now.toISOString() } : {}),
  });
  return { status: pastDeadline ? "failed" : "retry", result: { error: detail.slice(0, 500) } };
}

/** Not an electronic receiver: the buyer gets the printed copy, by e-mail when the e-CF names one. */
async function printedCopyInstead(attempt: DeliveryAttempt): Promise<TaskOutcome> {
  const { context, receipt, rncComprador } = attempt;
  context.recordDelivery(receipt.id, {
    deliveryStatus: "no_receptor",
    deliveryAt: context.now.toISOString(),
    deliveryAttempts: attempt.attempts,
    deliveryDetail: `${rncComprador} is not an electronic receiver in DGII's directory`,
  });
  const to = correoComprador(await archivedXml(context.env, receipt));
  return {
    status: "done",
    result: { notListed: rncComprador, emailTo: to ?? null },
    ...(to ? { then: [emailTask(receipt.companyId, receipt.encf, to)] } : {}),
  };
}

/** POSTs the signed e-CF to the buyer's recepción service and records the ARECF it answers. */
async function sendToReceiver(
  attempt: DeliveryAttempt,
  urlRecepcion: string,
  urlOpcional: DirectoryEntry["urlOpcional"],
): Promise<TaskOutcome> {
  const { context, receipt, company } = attempt;
  const { env } = context;
  const signer = await signerFor(env, company);
  const receiver = new ReceiverClient(company.rnc, signer, dgiiTimeoutMs(env), outboundPolicy(env));
  const { url, response } = await receiver.post(
    urlRecepcion,
    "/fe/recepcion/api/ecf",
    await archivedXml(env, receipt),
    `${company.rnc}${receipt.encf}.xml`,
    urlOpcional,
  );
  const body = await response.text();
  if (!response.ok) return failedAttempt(attempt, `${url} → HTTP ${response.status} ${body.slice(0, 200)}`);

  let arecf: ArecfDocument;
  try {
    arecf = parseArecf(body);
  } catch (error) {
    return failedAttempt(attempt, `${url} answered no ARECF: ${(error as Error).message}`);
  }
  const problem = await arecfProblem(body, arecf, company, receipt.encf, attempt.rncComprador);
  if (problem) return failedAttempt(attempt, `${url}: ${problem}`);
  // The first ARECF on record stays: an identical one is a retry; a different one is not kept.
  await archiveImmutable(env.ARCHIVE, companionKey(receipt.xmlKey, ".arecf.xml"), body, "application/xml").catch(
    (error: unknown) => console.error("ARECF already archived", error),
  );
  return recordArecf(attempt, url, arecf);
}

/** The buyer's word on the receipt, as its ARECF gives it. */
function recordArecf(attempt: DeliveryAttempt, url: string, arecf: ArecfDocument): TaskOutcome {
  const { context, receipt } = attempt;
  // Motivo 3 (envío duplicado): the buyer has it already, from an attempt whose answer we lost.
  const delivered = arecf.Estado === "0" || arecf.CodigoMotivoNoRecibido === "3";
  context.recordDelivery(receipt.id, {
    deliveryStatus: delivered ? "entregado" : "no_recibido",
    deliveryAt: context.now.toISOString(),
    deliveryAttempts: attempt.attempts,
    deliveryArecfEstado: arecf.Estado,
    deliveryMotivo: arecf.CodigoMotivoNoRecibido ?? null,
    deliveryDetail: `${url} → ARECF Estado ${arecf.Estado}`,
  });
  return { status: "done", result: { url, estado: arecf.Estado, motivo: arecf.CodigoMotivoNoRecibido ?? null } };
}
