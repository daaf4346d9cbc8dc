// The public validator's checks, all run on every document so that one answer lists every problem:
// the official XSD, the signature and its certificate chain, for an e-CF the obligation matrices
// and totals tolerances (shared/validate.ts, as issuing uses them) and the timbre's fields, and the
// file-name rule. Nothing is stored.
import {
  parseDgiiDateTime,
  timbreForSignedEcf,
  timbreUrl,
  validateEcf,
  validateXsdModel,
  verifyXml,
  xmlToEcf,
} from "@ecf/shared";
import { checkSignerTrust, type TrustEnv } from "../receiving/signer-trust.ts";
import { identify, SIGNED_AT_LEAF, type Identified } from "./document-kind.ts";
import { finding, type Finding } from "./finding.ts";
import { rfceBindingFindings } from "./rfce-binding.ts";

export interface Verdict {
  valid: boolean;
  /** The document's format: an e-CF type ("31" … "47") or RFCE, ARECF, ACECF, ANECF. */
  kind: string | null;
  /** An e-CF's (or RFCE's) security code and the URL its QR must hold. */
  timbre: { codigoSeguridad: string; url: string } | null;
  problems: Finding[];
}

function xsdFindings(xml: string, doc: Identified): Finding[] {
  const { errors } = validateXsdModel(xml, doc.kind, { requireSignature: true });
  return errors.map((error) =>
    finding("/xml", "xsd", error, `No cumple el esquema XSD oficial: ${error}`, `xsd: ${doc.kind}`),
  );
}

async function signatureFindings(env: TrustEnv, xml: string, doc: Identified, now: Date): Promise<Finding[]> {
  const verified = await verifyXml(xml);
  if (!verified.ok)
    return [
      finding(
        "/xml/Signature",
        `signature_${verified.reason}`,
        `The signature does not verify (${verified.reason}): ${verified.message}`,
        `La firma digital no verifica (${verified.reason}): el documento fue alterado después de firmado o se firmó mal.`,
        "descripcion-tecnica: Firmado de XML (SHA-256, sin preservar espacios; no alterar después de firmado)",
      ),
    ];
  const signedAt = parseDgiiDateTime(doc.leaf(SIGNED_AT_LEAF[doc.kind] ?? "FechaHoraFirma") ?? "") ?? now;
  const trust = await checkSignerTrust(env, verified.certificate.der, signedAt, xml);
  if (trust.ok) return [];
  return [
    finding(
      "/xml/Signature/KeyInfo",
      `certificate_${trust.reason}`,
      `The signing certificate is not acceptable (${trust.reason}): ${trust.message}`,
      `El certificado de la firma no es aceptable (${trust.reason}): debe emitirlo una entidad acreditada por INDOTEL y estar vigente al firmar.`,
      "descripcion-tecnica: Firmado de XML (certificado digital para procedimiento tributario)",
    ),
  ];
}

/** The obligation matrices and totals of an e-CF, as issuing judges them (nothing is completed for it). */
function ecfFindings(xml: string, now: Date): Finding[] {
  let document: Record<string, unknown>;
  try {
    document = xmlToEcf(xml);
  } catch {
    return []; // Not readable as an e-CF: the XSD findings say why.
  }
  const { problems } = validateEcf(document, { now, totalsPolicy: "strict" });
  return problems.map((p) =>
    finding(`/xml${p.path}`, p.code, p.message, p.messageEs, p.rule, p.severity === "error" ? "error" : "warning"),
  );
}

function timbreOf(xml: string): { found: Verdict["timbre"]; problems: Finding[] } {
  try {
    const timbre = timbreForSignedEcf(xml, "ecf");
    return { found: { codigoSeguridad: timbre.codigoSeguridad, url: timbreUrl(timbre) }, problems: [] };
  } catch (error) {
    const detail = (error as Error).message;
    return {
      found: null,
      problems: [
        finding(
          "/xml",
          "timbre_incomplete",
          `The QR's timbre cannot be made: ${detail}`,
          `No se puede formar el timbre del código QR: ${detail}`,
          "informe-tecnico §17.2.3: código QR y código de seguridad",
        ),
      ],
    };
  }
}

/** descripcion-tecnica, "Formato de Nombre de los Archivos XML": RNCEmisor (or RNCComprador) + e-NCF. */
function fileNameFindings(fileName: string, doc: Identified): Finding[] {
  const byBuyer = doc.kind === "ARECF" || doc.kind === "ACECF";
  const rnc = doc.leaf(byBuyer ? "RNCComprador" : "RNCEmisor");
  const encf = doc.leaf("eNCF");
  if (doc.kind === "ANECF" || !rnc || !encf) return [];
  const expected = `${rnc}${encf}.xml`;
  if (fileName === expected) return [];
  return [
    finding(
      "/filename",
      "file_name",
      `The file should be named ${expected} (${byBuyer ? "RNCComprador" : "RNCEmisor"} + e-NCF).`,
      `El archivo debe llamarse ${expected} (${byBuyer ? "RNC del comprador" : "RNC del emisor"} seguido del e-NCF).`,
      "descripcion-tecnica: Formato de Nombre de los Archivos XML",
    ),
  ];
}

/** What comes with the document: its file's name, and for an RFCE the E32 it summarises ("": not given). */
export interface Companions {
  fileName: string;
  e32Xml: string;
}

/** Every problem of `xml` at once; each companion is checked when given. */
export async function validateDocument(
  env: TrustEnv,
  xml: string,
  { fileName, e32Xml }: Companions,
  now: Date,
): Promise<Verdict> {
  const doc = identify(xml);
  if (!doc)
    return {
      valid: false,
      kind: null,
      timbre: null,
      problems: [
        finding(
          "/xml",
          "unknown_format",
          "The root element is none of ECF, RFCE, ARECF, ACECF or ANECF (or the XML is not well formed).",
          "El elemento raíz no es ECF, RFCE, ARECF, ACECF ni ANECF (o el XML no está bien formado).",
          "descripcion-tecnica: formatos XML",
        ),
      ],
    };
  const isEcf = doc.kind !== "ARECF" && doc.kind !== "ACECF" && doc.kind !== "ANECF" && doc.kind !== "RFCE";
  const timbre = isEcf || doc.kind === "RFCE" ? timbreOf(xml) : { found: null, problems: [] };
  const problems = [
    ...xsdFindings(xml, doc),
    ...(await signatureFindings(env, xml, doc, now)),
    ...(isEcf ? ecfFindings(xml, now) : []),
    ...timbre.problems,
    ...(fileName ? fileNameFindings(fileName, doc) : []),
    ...(doc.kind === "RFCE" && e32Xml ? rfceBindingFindings(xml, e32Xml) : []),
  ];
  return { valid: !problems.some((p) => p.severity === "error"), kind: doc.kind, timbre: timbre.found, problems };
}
