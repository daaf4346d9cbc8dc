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
import { emailTask, type BuyerDeliveryPayload, type TaskContext, type TaskOutcome } from "../ledger/task-types.ts";
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
  const { env, now } = context;
  const receipt = context.receipt(payload.encf);
  if (!receipt?.rncComprador || receipt.deliveryStatus !== "pendiente")
    return { status: "done", result: { skipped: "nothing to deliver" } };
  const company = await companyById(env, receipt.companyId);
  if (!company) return { status: "failed", result: { error: "the issuer no longer exists" } };
  const attempts = receipt.deliveryAttempts + 1;
  const timeoutMs = dgiiTimeoutMs(env);

  const failed = (detail: string): TaskOutcome => {
    context.recordDelivery(receipt.id, {
      deliveryAttempts: attempts,
      deliveryDetail: detail.slice(0, 500),
      ...(pastDeadline ? { deliveryStatus: "fallido", deliveryAt: now.toISOString() } : {}),
    });
    return { status: pastDeadline ? "failed" : "retry", result: { error: detail.slice(0, 500) } };
  };

  try {
    const entry = await directoryEntry(env, company, receipt.rncComprador);
    if (!entry?.urlRecepcion) {
      // Not an electronic receiver: the buyer gets the printed copy, by e-mail when the e-CF names one.
      context.recordDelivery(receipt.id, {
        deliveryStatus: "no_receptor",
        deliveryAt: now.toISOString(),
        deliveryAttempts: attempts,
        deliveryDetail: `${receipt.rncComprador} is not an electronic receiver in DGII's directory`,
      });
      const to = correoComprador(await archivedXml(env, receipt));
      return {
        status: "done",
        result: { notListed: receipt.rncComprador, emailTo: to ?? null },
        ...(to ? { then: [emailTask(receipt.companyId, receipt.encf, to)] } : {}),
      };
    }
    const receiver = new ReceiverClient(company.rnc, await signerFor(env, company), timeoutMs, outboundPolicy(env));
    const { url, response } = await receiver.post(
      entry.urlRecepcion,
      "/fe/recepcion/api/ecf",
      await archivedXml(env, receipt),
      `${company.rnc}${receipt.encf}.xml`,
      entry.urlOpcional,
    );
    const body = await response.text();
    if (!response.ok) return failed(`${url} → HTTP ${response.status} ${body.slice(0, 200)}`);

    let arecf: ArecfDocument;
    try {
      arecf = parseArecf(body);
    } catch (error) {
      return failed(`${url} answered no ARECF: ${(error as Error).message}`);
    }
    const problem = await arecfProblem(body, arecf, company, receipt.encf, receipt.rncComprador);
    if (problem) return failed(`${url}: ${problem}`);
    // The first ARECF on record stays: an identical one is a retry; a different one is not kept.
    await archiveImmutable(env.ARCHIVE, companionKey(receipt.xmlKey, ".arecf.xml"), body, "application/xml").catch(
      (error: unknown) => console.error("ARECF already archived", error),
    );
    // Motivo 3 (envío duplicado): the buyer has it already, from an attempt whose answer we lost.
    const delivered = arecf.Estado === "0" || arecf.CodigoMotivoNoRecibido === "3";
    context.recordDelivery(receipt.id, {
      deliveryStatus: delivered ? "entregado" : "no_recibido",
      deliveryAt: now.toISOString(),
      deliveryAttempts: attempts,
      deliveryArecfEstado: arecf.Estado,
      deliveryMotivo: arecf.CodigoMotivoNoRecibido ?? null,
      deliveryDetail: `${url} → ARECF Estado ${arecf.Estado}`,
    });
    return { status: "done", result: { url, estado: arecf.Estado, motivo: arecf.CodigoMotivoNoRecibido ?? null } };
  } catch (error) {
    return failed((error as Error).message);
  }
}
