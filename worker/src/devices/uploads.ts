import {
  drMonth,
  isoDateFromDgii as isoDate,
  parseDgiiDateTime,
  verifyXml,
  xmlToEcf,
  type JsonDocument,
  objAt,
  textOf,
} from "@ecf/shared";
import { sha256Hex } from "@ecf/shared/sha256";
import { ApiProblem } from "../errors/problem.ts";
import type { Company } from "../db/tables.ts";
import type { Device } from "./auth.ts";
import { certificateWasCompanys } from "./certificates.ts";
import { issuerLedger, receiptMonth } from "../ledger/client.ts";
import { deviceAnswer, submitSignedReceipt, type ReceiptAnswer } from "./submit.ts";

const unprocessable = (code: string, message: string, path = "/xml") =>
  new ApiProblem("unprocessable", { detail: message, errors: [{ path, code, message }] });

/** A leaf of the document (`…path, name`), as written, or null. */
const text = (doc: JsonDocument, ...path: string[]): string | null =>
  textOf(objAt(doc, ...path.slice(0, -1)), path[path.length - 1]!) ?? null;

interface SignedReceiptFacts {
  encf: string;
  tipoeCF: string;
  fechaEmision: string;
  fechaHoraFirma: string;
  montoTotal: string;
  securityCode: string;
  rncComprador: string | null;
}

/** Reads what the checks need from the signed XML; a document without them is refused. */
function readFacts(xml: string): SignedReceiptFacts {
  let doc: JsonDocument;
  try {
    doc = xmlToEcf(xml);
  } catch (error) {
    throw unprocessable("malformed_xml", `The receipt is not a readable e-CF: ${(error as Error).message}`);
  }
  const encf = text(doc, "Encabezado", "IdDoc", "eNCF");
  const tipoeCF = text(doc, "Encabezado", "IdDoc", "TipoeCF");
  const fechaEmision = text(doc, "Encabezado", "Emisor", "FechaEmision");
  const fechaHoraFirma = text(doc, "FechaHoraFirma");
  const montoTotal = text(doc, "Encabezado", "Totales", "MontoTotal");
  const signatureValue = /<SignatureValue>([^<]{6})/.exec(xml)?.[1];
  if (
    !encf ||
    !tipoeCF ||
    !fechaEmision ||
    !fechaHoraFirma ||
    !montoTotal ||
    !signatureValue ||
    !/^E\d{12}$/.test(encf) ||
    encf.slice(1, 3) !== tipoeCF
  ) {
    throw unprocessable(
      "incomplete",
      "The receipt lacks eNCF, TipoeCF, FechaEmision, MontoTotal, FechaHoraFirma or a signature.",
    );
  }
  return {
    encf,
    tipoeCF,
    fechaEmision,
    fechaHoraFirma,
    montoTotal,
    securityCode: signatureValue,
    rncComprador: text(doc, "Encabezado", "Comprador", "RNCComprador"),
  };
}

/** A device's receipt that passed every check that needs no ledger. */
export interface CheckedReceipt extends SignedReceiptFacts {
  xml: string;
  /** The month object it belongs in (its FechaEmision's, yyyy-MM). */
  month: string;
  /** SHA-256 of the signed bytes: tells a retry from a different document under the same e-NCF. */
  xmlSha256: string;
}

/**
 * The checks that need no ledger: the issuer, a signature by a certificate that was the
 * company's at FechaHoraFirma, and (for a revoked device) signed before the revocation. A failed
 * check throws the ApiProblem the upload answers with (paths relative to the upload: `/xml`).
 */
export async function checkDeviceReceipt(
  env: Env,
  company: Company,
  device: Device,
  xml: string,
): Promise<CheckedReceipt> {
  const facts = readFacts(xml);
  const rncEmisor = /<RNCEmisor>([^<]*)<\/RNCEmisor>/.exec(xml)?.[1];
  if (rncEmisor !== company.rnc)
    throw new ApiProblem("forbidden", {
      detail: `This device issues for ${company.rnc}, not for ${rncEmisor ?? "an unnamed issuer"}.`,
    });

  const verdict = await verifyXml(xml);
  if (!verdict.ok)
    throw unprocessable(`signature_${verdict.reason}`, `The signature does not verify: ${verdict.message}`);
  const certificate = await certificateWasCompanys(env.DB, company, verdict.certificate, facts.fechaHoraFirma);
  if (!certificate.ok) throw unprocessable(certificate.code, certificate.message);

  // A revoked device may still hand over what it signed before the revocation (see requireDevice).
  if (device.revokedAt) {
    const signedAt = parseDgiiDateTime(facts.fechaHoraFirma);
    if (!signedAt || signedAt.getTime() >= Date.parse(device.revokedAt)) {
      throw unprocessable(
        "signed_after_revocation",
        `This device was revoked on ${device.revokedAt}; a receipt it signed at ${facts.fechaHoraFirma} is not the issuer's.`,
        "/xml",
      );
    }
  }
  return { ...facts, xml, month: isoDate(facts.fechaEmision).slice(0, 7), xmlSha256: await sha256Hex(xml) };
}

/** The admission the issuer object asks for: type, sequence number and the month it belongs in. */
export const admission = (r: CheckedReceipt) => ({
  tipoeCF: r.tipoeCF,
  number: Number(r.encf.slice(3)),
  month: r.month,
});

export const notLeased = (encf: string) =>
  unprocessable("encf_not_leased", `${encf} is not in a block of numbers leased to this device.`, "/xml");

export const encfVoided = (encf: string) =>
  new ApiProblem("conflict", {
    detail: `${encf} was voided (ANECF) after this device gave it up; it can hold no receipt.`,
    errors: [{ path: "/xml", code: "encf_voided", message: "The e-NCF was voided with DGII." }],
  });

export const encfAlreadyUsed = (encf: string) =>
  new ApiProblem("conflict", {
    detail: `${encf} was already uploaded with different content; an e-NCF is never used twice.`,
    errors: [{ path: "/xml", code: "encf_already_used", message: "Different document for an e-NCF already received." }],
  });

export interface UploadOutcome {
  answer: ReceiptAnswer;
  /** True when this is the stored answer to an earlier upload of the same receipt. */
  replayed: boolean;
}

/**
 * A receipt signed on a device: checked (issuer, signature by a certificate that was the company's
 * at FechaHoraFirma, signed before the device's revocation if any, number inside one of this
 * device's leases), deduplicated by e-NCF, then handed to the issuing pipeline. A retry of the
 * same bytes gets the receipt's answer (its state now) with `replayed`.
 */
export async function acceptDeviceReceipt(
  env: Env,
  company: Company,
  device: Device,
  xml: string,
): Promise<UploadOutcome> {
  const receipt = await checkDeviceReceipt(env, company, device, xml);
  const { tipoeCF, number, month } = admission(receipt);

  // The issuer object checks the lease, counts the receipt once and says which month holds it.
  const admitted = await issuerLedger(env, company.id)
    .leases()
    .admitDeviceReceipt(device.id, tipoeCF, number, month, drMonth(new Date()));
  if (!admitted.leased) throw notLeased(receipt.encf);
  if (admitted.voided) throw encfVoided(receipt.encf);

  // A retry is the same signed bytes under the same e-NCF: the receipt's answer again. Anything
  // else under that e-NCF (here, or already placed in another month) is a different document.
  const existing =
    admitted.month === month ? await receiptMonth(env, company.id, month).receipts().receipt(receipt.encf) : null;
  if (admitted.month !== month || (existing && existing.documentHash !== receipt.xmlSha256))
    throw encfAlreadyUsed(receipt.encf);
  if (existing) return { answer: deviceAnswer(existing), replayed: true };
  return { answer: await submitSignedReceipt(env, company, xml, receipt.xmlSha256), replayed: false };
}
