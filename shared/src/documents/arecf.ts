/**
 * ARECF: the acknowledgment of receipt a receiver returns for every e-CF it gets
 * (formato-arecf). It says received or not received, never accepted or rejected.
 */
import { xmlToDocument } from "../xml/parse.ts";
import { buildDocumentXml, optionalText, requiredText } from "./build.ts";

/** 0: e-CF recibido, 1: e-CF no recibido. */
export type ArecfEstado = "0" | "1";
/** 1: error de especificación, 2: error de firma digital, 3: envío duplicado, 4: RNC comprador no corresponde. */
export type CodigoMotivoNoRecibido = "1" | "2" | "3" | "4";

export interface ArecfInput {
  /** Issuer of the e-CF being acknowledged. */
  RNCEmisor: string;
  /** The receiver sending this acknowledgment. */
  RNCComprador: string;
  eNCF: string;
  Estado: ArecfEstado;
  /** Required when Estado is "1". */
  CodigoMotivoNoRecibido?: CodigoMotivoNoRecibido;
  /** dd-MM-yyyy HH:mm:ss (see formatDgiiDateTime). */
  FechaHoraAcuseRecibo: string;
}

export interface ArecfDocument extends ArecfInput {
  Version: string;
}

/** ARECF XML (compact, canonical, ready to sign). */
export function buildArecf(input: ArecfInput): string {
  return buildDocumentXml(
    {
      DetalleAcusedeRecibo: {
        Version: "1.0",
        RNCEmisor: input.RNCEmisor,
        RNCComprador: input.RNCComprador,
        eNCF: input.eNCF,
        Estado: input.Estado,
        // The motive only means something for "not received".
        CodigoMotivoNoRecibido: input.Estado === "1" ? input.CodigoMotivoNoRecibido : undefined,
        FechaHoraAcuseRecibo: input.FechaHoraAcuseRecibo,
      },
    },
    "ARECF",
  );
}

/** Reads an ARECF (signed or not). */
export function parseArecf(xml: string): ArecfDocument {
  const d = xmlToDocument(xml, "ARECF").DetalleAcusedeRecibo as Record<string, unknown> | undefined;
  if (!d) throw new Error("ARECF without DetalleAcusedeRecibo");
  const motivo = optionalText(d.CodigoMotivoNoRecibido);
  return {
    Version: requiredText(d.Version, "Version"),
    RNCEmisor: requiredText(d.RNCEmisor, "RNCEmisor"),
    RNCComprador: requiredText(d.RNCComprador, "RNCComprador"),
    eNCF: requiredText(d.eNCF, "eNCF"),
    Estado: requiredText(d.Estado, "Estado") as ArecfEstado,
    ...(motivo ? { CodigoMotivoNoRecibido: motivo as CodigoMotivoNoRecibido } : {}),
    FechaHoraAcuseRecibo: requiredText(d.FechaHoraAcuseRecibo, "FechaHoraAcuseRecibo"),
  };
}
