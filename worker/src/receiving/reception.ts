// Recepción (emisor-receptor): a supplier sends us an e-CF; we always answer with a signed ARECF
// that says received (0) or not received (1) with the reason. A document we cannot even identify
// (hostile, not XML, no eNCF) gets a problem response instead: there is nothing to acknowledge.
import {
  buildArecf,
  formatDgiiDateTime,
  isoDateOf,
  isTipoeCF,
  parseDgiiDateTime,
  parseXmlTree,
  securityCode,
  treeToDocument,
  verifyXml,
  XmlParseError,
  type CodigoMotivoNoRecibido,
  type JsonDocument,
  type TipoeCF,
} from "@ecf/shared";
import { issuerLedger, newPurchaseId, receiptMonth, writeAudit } from "../ledger/client.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { Company } from "../db/tables.ts";
import { sha256Hex } from "@ecf/shared/sha256";
import { companionKey, purchaseXmlKey } from "./archive-keys.ts";
import { documentFigures } from "../ledger/month/document-figures.ts";
import { signAsCompany } from "./company-signer.ts";
import { checkSignerTrust } from "./signer-trust.ts";
import { nextCheckAt } from "./purchase-confirmation.ts";
import { validateReceivedXsd } from "./xsd/validate.ts";
import { NOT_EXCHANGED } from "./exchanged-types.ts";

export const CODIGO_MOTIVO_TEXT: Record<CodigoMotivoNoRecibido, string> = {
  "1": "Error de especificación",
  "2": "Error de Firma Digital",
  "3": "Envío duplicado",
  "4": "RNC Comprador no corresponde",
};

const RNC = /^(\d{9}|\d{11})$/;
const ENCF = /^E\d{12}$/;

/** What identifies a received e-CF, read before anything is judged. */
export interface ReceivedEcf {
  tipo: string;
  encf: string;
  rncEmisor: string;
  rncComprador: string | undefined;
  razonSocialEmisor: string | undefined;
  fechaEmision: string | undefined;
  montoTotal: string | undefined;
  totalItbis: string | undefined;
  document: JsonDocument;
}

const malformed = (detail: string, code = "malformed_xml") =>
  new ApiProblem("bad_request", { detail, errors: [{ path: "/xml", code, message: detail }] });

function leaf(doc: JsonDocument, ...path: string[]): string | undefined {
  let v: unknown = doc;
  for (const p of path)
    v = v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  return typeof v === "string" ? v.trim() : undefined;
}

/** Parses safely (no DOCTYPE, entities or deep nesting) and reads what the ARECF needs. */
export function identifyEcf(xml: string): ReceivedEcf {
  let tree;
  try {
    tree = parseXmlTree(xml);
  } catch (error) {
    if (error instanceof XmlParseError) throw malformed(`The XML cannot be accepted: ${error.message}`);
    throw error;
  }
  if (tree.name !== "ECF") throw malformed(`Expected an e-CF (root <ECF>), found <${tree.name}>.`, "not_an_ecf");
  const tipoText =
    tree.children
      .find((c) => c.name === "Encabezado")
      ?.children.find((c) => c.name === "IdDoc")
      ?.children.find((c) => c.name === "TipoeCF")
      ?.text.trim() ?? "";
  const document = treeToDocument(tree, isTipoeCF(tipoText) ? tipoText : "31");
  const encf = leaf(document, "Encabezado", "IdDoc", "eNCF");
  const rncEmisor = leaf(document, "Encabezado", "Emisor", "RNCEmisor");
  if (!encf || !ENCF.test(encf))
    throw malformed("The e-CF has no valid eNCF, so it cannot be acknowledged.", "encf_missing");
  if (!rncEmisor || !RNC.test(rncEmisor))
    throw malformed("The e-CF has no valid RNCEmisor, so it cannot be acknowledged.", "rnc_emisor_missing");
  return {
    tipo: tipoText,
    encf,
    rncEmisor,
    rncComprador: leaf(document, "Encabezado", "Comprador", "RNCComprador"),
    razonSocialEmisor: leaf(document, "Encabezado", "Emisor", "RazonSocialEmisor"),
    fechaEmision: leaf(document, "Encabezado", "Emisor", "FechaEmision"),
    montoTotal: leaf(document, "Encabezado", "Totales", "MontoTotal"),
    totalItbis: leaf(document, "Encabezado", "Totales", "TotalITBIS"),
    document,
  };
}

/**
 * Specification problems (code 1): a type not exchanged, then DGII's official XSD of the type
 * (required elements, their order, formats), then the fields the record needs. The Signature
 * element is not demanded here: a missing or broken signature is a signature error (code 2).
 */
export async function specificationProblems(ecf: ReceivedEcf, xml: string): Promise<string[]> {
  if (!isTipoeCF(ecf.tipo)) return [`TipoeCF '${ecf.tipo}' is not an e-CF type`];
  if (NOT_EXCHANGED.has(ecf.tipo)) return [`Type ${ecf.tipo} e-CF are not exchanged between taxpayers`];
  if (ecf.encf.slice(1, 3) !== ecf.tipo) return [`eNCF ${ecf.encf} does not belong to type ${ecf.tipo}`];
  const xsd = validateReceivedXsd(xml, ecf.tipo as TipoeCF);
  if (!xsd.valid)
    return xsd.errors.length
      ? xsd.errors.slice(0, 20)
      : [`The e-CF does not validate against the XSD of type ${ecf.tipo}`];
  const messages: string[] = [];
  if (!ecf.fechaEmision || !isoDateOf(ecf.fechaEmision)) messages.push("FechaEmision is missing or not a date");
  if (!ecf.montoTotal) messages.push("MontoTotal is missing");
  return messages;
}

export interface ReceptionResult {
  arecf: string;
  estado: "0" | "1";
  codigo?: CodigoMotivoNoRecibido;
  reasons: string[];
  purchaseId?: string;
}

/**
 * Judges a received e-CF for `company` and answers with a signed ARECF. Order: specification (1),
 * signature and its certificate's chain to a trusted authority (2), buyer (4), duplicate (3); only
 * a received document is stored.
 */
export async function receiveEcf(
  env: Env,
  company: Company,
  xml: string,
  now: Date,
  requestId: string,
): Promise<ReceptionResult> {
  const ecf = identifyEcf(xml);
  let { codigo, reasons } = await judgeReceived(env, company, ecf, xml, now);
  const fechaHoraAcuseRecibo = formatDgiiDateTime(now);
  if (!codigo) {
    const received = await storeReceived(env, company, ecf, xml, now, fechaHoraAcuseRecibo);
    if (received) return received;
    codigo = "3";
    reasons = [`${ecf.encf} from ${ecf.rncEmisor} was already received`];
  }

  const arecf = await signedArecf(env, company, ecf, "1", codigo, fechaHoraAcuseRecibo);
  await writeAudit(env, company.id, {
    actor: ecf.rncEmisor,
    action: "POST /fe/recepcion/api/ecf",
    code: `arecf_no_recibido_${codigo}`,
    status: 200,
    detail: `${ecf.encf}: ${CODIGO_MOTIVO_TEXT[codigo]}. ${reasons.join("; ")}`.slice(0, 1000),
    requestId,
  });
  return { arecf, estado: "1", codigo, reasons };
}

/** Why the document is not received (codes 1, 2 and 4, in that order), or no code when nothing is wrong yet. */
async function judgeReceived(
  env: Env,
  company: Company,
  ecf: ReceivedEcf,
  xml: string,
  now: Date,
): Promise<{ codigo: CodigoMotivoNoRecibido | undefined; reasons: string[] }> {
  const specification = await specificationProblems(ecf, xml);
  if (specification.length) return { codigo: "1", reasons: specification };
  const signature = await signatureProblem(env, ecf, xml, now);
  if (signature) return { codigo: "2", reasons: [signature] };
  if (ecf.rncComprador !== company.rnc)
    return { codigo: "4", reasons: [`RNCComprador ${ecf.rncComprador ?? "(none)"} is not ${company.rnc}`] };
  return { codigo: undefined, reasons: [] };
}

/** What is wrong with the document's signature or its certificate, if anything. */
async function signatureProblem(env: Env, ecf: ReceivedEcf, xml: string, now: Date): Promise<string | null> {
  const verified = await verifyXml(xml);
  if (!verified.ok) return `${verified.reason}: ${verified.message}`;
  // The certificate must chain to an accredited authority and have been valid when the
  // document says it was signed; a throw-away self-signed certificate proves nothing.
  const signedAt = parseDgiiDateTime(leaf(ecf.document, "FechaHoraFirma") ?? "") ?? now;
  const trust = await checkSignerTrust(env, verified.certificate.der, signedAt, xml);
  return trust.ok ? null : `${trust.reason}: ${trust.message}`;
}

/** The ARECF for `ecf`, signed as the company. */
function signedArecf(
  env: Env,
  company: Company,
  ecf: ReceivedEcf,
  estado: "0" | "1",
  codigo: CodigoMotivoNoRecibido | undefined,
  fechaHoraAcuseRecibo: string,
) {
  return signAsCompany(
    env,
    company,
    buildArecf({
      RNCEmisor: ecf.rncEmisor,
      RNCComprador: company.rnc,
      eNCF: ecf.encf,
      Estado: estado,
      CodigoMotivoNoRecibido: codigo,
      FechaHoraAcuseRecibo: fechaHoraAcuseRecibo,
    }),
  );
}

/**
 * Records a document found fit, archives it with its signed ARECF (estado 0) and answers that;
 * null when its (supplier, e-NCF) slot is taken already, a duplicate.
 */
async function storeReceived(
  env: Env,
  company: Company,
  ecf: ReceivedEcf,
  xml: string,
  now: Date,
  fechaHoraAcuseRecibo: string,
): Promise<ReceptionResult | null> {
  const issueDate = isoDateOf(ecf.fechaEmision!)!;
  const xmlKey = purchaseXmlKey(company.rnc, issueDate, ecf.rncEmisor, ecf.encf);
  const arecfKey = companionKey(xmlKey, ".arecf.xml");
  const month = issueDate.slice(0, 7);
  const id = newPurchaseId(month);
  const ledger = issuerLedger(env, company.id);
  const stub = receiptMonth(env, company.id, month);
  // Claim the (supplier, e-NCF) slot first, in the issuer's index and then in the month: a
  // duplicate must never overwrite the original in R2.
  const placed = await ledger.index().registerPurchase(ecf.rncEmisor, ecf.encf, month);
  const claimed =
    placed === month &&
    (await stub.purchases().addPurchase({
      id,
      companyId: company.id,
      rncEmisor: ecf.rncEmisor,
      razonSocialEmisor: ecf.razonSocialEmisor ?? null,
      encf: ecf.encf,
      tipoeCF: ecf.tipo,
      issueDate,
      montoTotal: ecf.montoTotal!,
      totalItbis: ecf.totalItbis ?? null,
      xmlKey,
      xmlSha256: await sha256Hex(xml),
      arecfKey,
      arecfEstado: "0",
      fechaHoraAcuseRecibo,
      figures: JSON.stringify(documentFigures(ecf.document)),
      // Counts only once DGII confirms it (purchase-confirmation.ts): the alarm asks soon.
      dgiiStatus: "pending",
      securityCode: securityCode(xml),
      dgiiNextCheckAt: nextCheckAt(0, now, now),
    }));
  if (!claimed) return null;
  try {
    const arecf = await signedArecf(env, company, ecf, "0", undefined, fechaHoraAcuseRecibo);
    await env.ARCHIVE.put(xmlKey, xml, { httpMetadata: { contentType: "application/xml" } });
    await env.ARCHIVE.put(arecfKey, arecf, { httpMetadata: { contentType: "application/xml" } });
    return { arecf, estado: "0", reasons: [], purchaseId: id };
  } catch (error) {
    // Not signed and stored means not received: free the slot so the supplier's retry can succeed.
    await stub.purchases().deletePurchase(id);
    await ledger.index().forgetPurchase(ecf.rncEmisor, ecf.encf);
    throw error;
  }
}
