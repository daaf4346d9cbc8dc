/**
 * ACECF: the commercial approval (or rejection) a receiver sends for an e-CF it accepted
 * (formato-acecf); a copy goes to DGII.
 */
import { xmlToDocument } from "../xml/parse.ts";
import { buildDocumentXml, optionalText, requiredText } from "./build.ts";

/** 1: e-CF aceptado, 2: e-CF rechazado. */
export type AcecfEstado = "1" | "2";

export interface AcecfInput {
  RNCEmisor: string;
  eNCF: string;
  /** dd-MM-yyyy: FechaEmision of the e-CF. */
  FechaEmision: string;
  /** MontoTotal of the e-CF; written with exactly 2 decimals (the ACECF schema demands them). */
  MontoTotal: string | number;
  RNCComprador: string;
  Estado: AcecfEstado;
  /** Reason for a rejection (Estado "2"), up to 250 characters. */
  DetalleMotivoRechazo?: string;
  /** dd-MM-yyyy HH:mm:ss. */
  FechaHoraAprobacionComercial: string;
}

export interface AcecfDocument extends AcecfInput {
  Version: string;
  MontoTotal: string;
}

/** ACECF XML (compact, canonical, ready to sign). */
export function buildAcecf(input: AcecfInput): string {
  return buildDocumentXml(
    {
      DetalleAprobacionComercial: {
        Version: "1.0",
        RNCEmisor: input.RNCEmisor,
        eNCF: input.eNCF,
        FechaEmision: input.FechaEmision,
        MontoTotal: input.MontoTotal,
        RNCComprador: input.RNCComprador,
        Estado: input.Estado,
        DetalleMotivoRechazo: input.DetalleMotivoRechazo,
        FechaHoraAprobacionComercial: input.FechaHoraAprobacionComercial,
      },
    },
    "ACECF",
  );
}

/** Reads an ACECF (signed or not). */
export function parseAcecf(xml: string): AcecfDocument {
  const d = xmlToDocument(xml, "ACECF").DetalleAprobacionComercial as Record<string, unknown> | undefined;
  if (!d) throw new Error("ACECF without DetalleAprobacionComercial");
  const motivo = optionalText(d.DetalleMotivoRechazo);
  return {
    Version: requiredText(d.Version, "Version"),
    RNCEmisor: requiredText(d.RNCEmisor, "RNCEmisor"),
    eNCF: requiredText(d.eNCF, "eNCF"),
    FechaEmision: requiredText(d.FechaEmision, "FechaEmision"),
    MontoTotal: requiredText(d.MontoTotal, "MontoTotal"),
    RNCComprador: requiredText(d.RNCComprador, "RNCComprador"),
    Estado: requiredText(d.Estado, "Estado") as AcecfEstado,
    ...(motivo !== undefined ? { DetalleMotivoRechazo: motivo } : {}),
    FechaHoraAprobacionComercial: requiredText(d.FechaHoraAprobacionComercial, "FechaHoraAprobacionComercial"),
  };
}
