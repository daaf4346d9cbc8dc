// The two documents the issuer signs for DGII's certification, as XML ready to upload in DGII's
// portal: the postulación (who applies, for which e-CF types, at which receiver URLs) and the
// declaración jurada. DGII checks that whoever signed them is the RNC's registered representative,
// so they are signed with the issuer's certificate only when its holder is that representative.
import { describeCertificate, escapeXmlText, formatDgiiDate, signXml } from "@ecf/shared";
import { certificateDerOf, signingKeyFor } from "../certificates/vault.ts";
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import type { CertificationRun, ReceiverUrls } from "./run.ts";

const el = (name: string, value: string) => `<${name}>${escapeXmlText(value)}</${name}>`;

function representative(run: CertificationRun): string {
  return `<Representante>${el("Cedula", run.representative.cedula)}${el("Nombre", run.representative.name)}</Representante>`;
}

/** The receiver URLs DGII will call, under this deployment's public origin and the issuer's RNC. */
export function receiverUrls(origin: string, rnc: string): ReceiverUrls {
  const base = `${origin.replace(/\/+$/, "")}/${rnc}/fe`;
  return {
    recepcion: `${base}/recepcion/api/ecf`,
    aprobacionComercial: `${base}/aprobacioncomercial/api/ecf`,
    autenticacion: `${base}/autenticacion`,
  };
}

export function postulacionXml(company: Company, run: CertificationRun, now: Date): string {
  const urls = run.receiverUrls;
  return (
    `<?xml version="1.0" encoding="utf-8"?><Postulacion>${el("Version", "1.0")}${el("RNC", company.rnc)}` +
    `${el("RazonSocial", company.legalName)}${representative(run)}` +
    el("TipoPostulante", run.applicant === "provider" ? "ProveedorServicios" : "Contribuyente") +
    (run.providerRnc ? el("RNCProveedor", run.providerRnc) : "") +
    `<TiposeCF>${run.ecfTypes.map((t) => el("TipoeCF", t)).join("")}</TiposeCF>` +
    `${el("URLRecepcion", urls.recepcion)}${el("URLAprobacionComercial", urls.aprobacionComercial)}` +
    `${el("URLAutenticacion", urls.autenticacion)}${el("FechaPostulacion", formatDgiiDate(now))}</Postulacion>`
  );
}

const DECLARATION =
  "Declaro bajo juramento que el sistema de facturación electrónica utilizado cumple con la Norma General " +
  "06-2018 y sus modificaciones, con el formato XML y la firma digital que establece la DGII, y que los datos " +
  "suministrados en el proceso de certificación son veraces.";

export function declaracionXml(company: Company, run: CertificationRun, now: Date): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><DeclaracionJurada>${el("Version", "1.0")}${el("RNC", company.rnc)}` +
    `${el("RazonSocial", company.legalName)}${representative(run)}${el("Declaracion", DECLARATION)}` +
    `${el("FechaDeclaracion", formatDgiiDate(now))}</DeclaracionJurada>`
  );
}

/**
 * Signs `xml` with the issuer's certificate, refusing one whose holder (the cédula in its
 * subject's serialNumber) is not the representative the run names: DGII would refuse it.
 */
export async function signAsRepresentative(env: Env, company: Company, run: CertificationRun, xml: string) {
  if (!company.certificateKeyEncrypted || !company.certificateDer)
    throw new ApiProblem("unprocessable", {
      detail: "The issuer has no signing certificate: upload the representative's with PUT /company/certificate.",
      errors: [
        {
          path: "",
          code: "certificate_missing",
          message: "Upload the representative's certificate first.",
          messageEs: "Suba primero el certificado digital del representante.",
        },
      ],
    });
  const der = certificateDerOf(company.certificateDer, company.id);
  const holder = describeCertificate(der).holderId;
  if (holder !== run.representative.cedula)
    throw new ApiProblem("unprocessable", {
      detail: `The certificate's holder (${holder ?? "no cédula"}) is not the representative ${run.representative.cedula}; DGII checks that the signer is the RNC's registered representative.`,
      errors: [
        {
          path: "",
          code: "signer_not_representative",
          message: `The certificate belongs to ${holder ?? "someone without a cédula"}, not to the representative.`,
          messageEs: `El certificado es de ${holder ?? "alguien sin cédula"}, no del representante registrado; DGII rechaza la firma.`,
        },
      ],
    });
  const key = await signingKeyFor(company.certificateKeyEncrypted, env.MASTER_KEY, company.id);
  return signXml(xml, key, der);
}
