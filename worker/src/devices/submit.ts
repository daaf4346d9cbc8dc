// The hand-off of a verified, device-signed receipt to the issuing pipeline (archive, record,
// transmit). The lead's `issuing/` function takes this place when it lands: this module is the
// one call to swap. Until then it archives the signed bytes in R2 exactly where the pipeline
// keeps them and reports "En Proceso" (received, not yet answered by DGII).
import { timbreForSignedEcf, timbreUrl } from "@ecf/shared";
import type { Company } from "../tenant/resolve.ts";

export type Estado = "Aceptado" | "Aceptado Condicional" | "En Proceso" | "Rechazado" | "Contingencia";

/** The answer a device gets for an uploaded receipt: the same shape as POST /fe/recepcion/ecf. */
export interface ReceiptAnswer {
  codigo: number | null;
  estado: Estado;
  encf: string;
  trackId: string | null;
  codigoSeguridad: string;
  fechaHoraFirma: string;
  urlTimbre: string | null;
  mensajes: { codigo: string; valor: string }[];
  reenviado: boolean;
}

export interface SignedReceiptFacts {
  encf: string;
  tipoeCF: string;
  /** FechaEmision as written (dd-MM-yyyy). */
  fechaEmision: string;
  fechaHoraFirma: string;
  securityCode: string;
  montoTotal: string;
  rncComprador: string | null;
  xmlSha256: string;
}

/** `{rnc}/{yyyy}/{mm}/{eNCF}.xml`, the archive layout of DESIGN.md, dated by FechaEmision. */
export function archiveKey(rnc: string, fechaEmision: string, encf: string): string {
  const [, mm, yyyy] = fechaEmision.split("-");
  return `${rnc}/${yyyy}/${mm}/${encf}.xml`;
}

export async function submitSignedReceipt(env: Env, company: Company, xml: string, facts: SignedReceiptFacts): Promise<ReceiptAnswer> {
  await env.ARCHIVE.put(archiveKey(company.rnc, facts.fechaEmision, facts.encf), xml, {
    httpMetadata: { contentType: "application/xml; charset=utf-8" },
    customMetadata: { sha256: facts.xmlSha256, source: "device" },
  });
  return {
    codigo: null,
    estado: "En Proceso",
    encf: facts.encf,
    trackId: null,
    codigoSeguridad: facts.securityCode,
    fechaHoraFirma: facts.fechaHoraFirma,
    urlTimbre: timbreUrl(timbreForSignedEcf(xml, company.dgiiEnvironment)),
    mensajes: [],
    reenviado: false,
  };
}

/**
 * The receipt's state now, for a device asking about one it uploaded earlier ("En Proceso" until
 * DGII's final word). Today the stored answer; with the issuing pipeline, its receipts row.
 */
export async function currentAnswer(env: Env, company: Company, encf: string): Promise<ReceiptAnswer | null> {
  const row = await env.DB.prepare(`SELECT answer FROM device_uploads WHERE company_id = ?1 AND encf = ?2`).bind(company.id, encf).first<{ answer: string | null }>();
  return row?.answer ? (JSON.parse(row.answer) as ReceiptAnswer) : null;
}
