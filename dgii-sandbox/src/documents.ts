// The fields of each received document kind that the sandbox acts on, read from the XML.
import { findAll, childNames, text, type XmlElement as Element } from "./xml-read.ts";

export const ENCF_PATTERN = /^E(31|32|33|34|41|43|44|45|46|47)\d{10}$/;
export const RNC_PATTERN = /^(\d{9}|\d{11})$/;

/** TipoeCF values of the `ECF` root. */
export const ECF_TYPES: readonly string[] = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"];

export interface EcfSummary {
  tipo: string;
  encf: string;
  rncEmisor: string;
  rncComprador?: string;
  idExtranjero?: string;
  fechaEmision?: string;
  fechaVencimientoSecuencia?: string;
  montoTotal?: string;
  totalITBIS?: string;
  /** Element names under Encabezado/Totales, to tell a text-only correction from one with amounts. */
  totales: string[];
  codigoModificacion?: string;
  ncfModificado?: string;
  fechaHoraFirma?: string;
  /** First six characters of SignatureValue: DGII's security code. */
  codigoSeguridad?: string;
}

function securityCode(root: Element): string | undefined {
  const value = text(root, ["Signature", "SignatureValue"]);
  return value ? value.replace(/\s+/g, "").slice(0, 6) : undefined;
}

export function readEcf(root: Element): EcfSummary {
  const encabezado = ["Encabezado"];
  return {
    tipo: text(root, [...encabezado, "IdDoc", "TipoeCF"]) ?? "",
    encf: text(root, [...encabezado, "IdDoc", "eNCF"]) ?? "",
    rncEmisor: text(root, [...encabezado, "Emisor", "RNCEmisor"]) ?? "",
    rncComprador: text(root, [...encabezado, "Comprador", "RNCComprador"]),
    idExtranjero: text(root, [...encabezado, "Comprador", "IdentificadorExtranjero"]),
    fechaEmision: text(root, [...encabezado, "Emisor", "FechaEmision"]),
    fechaVencimientoSecuencia: text(root, [...encabezado, "IdDoc", "FechaVencimientoSecuencia"]),
    montoTotal: text(root, [...encabezado, "Totales", "MontoTotal"]),
    totalITBIS: text(root, [...encabezado, "Totales", "TotalITBIS"]),
    totales: childNames(root, [...encabezado, "Totales"]),
    codigoModificacion: text(root, ["InformacionReferencia", "CodigoModificacion"]),
    ncfModificado: text(root, ["InformacionReferencia", "NCFModificado"]),
    fechaHoraFirma: text(root, ["FechaHoraFirma"]),
    codigoSeguridad: securityCode(root),
  };
}

export interface RfceSummary {
  tipo: string;
  encf: string;
  rncEmisor: string;
  rncComprador?: string;
  idExtranjero?: string;
  fechaEmision?: string;
  montoTotal?: string;
  totalITBIS?: string;
  /** CodigoSeguridadeCF: the security code of the full e-CF this summarises. */
  codigoSeguridad?: string;
}

export function readRfce(root: Element): RfceSummary {
  const encabezado = ["Encabezado"];
  return {
    tipo: text(root, [...encabezado, "IdDoc", "TipoeCF"]) ?? "",
    encf: text(root, [...encabezado, "IdDoc", "eNCF"]) ?? "",
    rncEmisor: text(root, [...encabezado, "Emisor", "RNCEmisor"]) ?? "",
    rncComprador: text(root, [...encabezado, "Comprador", "RNCComprador"]),
    idExtranjero: text(root, [...encabezado, "Comprador", "IdentificadorExtranjero"]),
    fechaEmision: text(root, [...encabezado, "Emisor", "FechaEmision"]),
    montoTotal: text(root, [...encabezado, "Totales", "MontoTotal"]),
    totalITBIS: text(root, [...encabezado, "Totales", "TotalITBIS"]),
    codigoSeguridad: text(root, [...encabezado, "CodigoSeguridadeCF"]),
  };
}

export interface AcecfSummary {
  rncEmisor: string;
  encf: string;
  rncComprador: string;
  /** 1 approved, 2 rejected (the buyer's commercial decision). */
  estado: string;
  montoTotal?: string;
}

export function readAcecf(root: Element): AcecfSummary {
  const detalle = ["DetalleAprobacionComercial"];
  return {
    rncEmisor: text(root, [...detalle, "RNCEmisor"]) ?? "",
    encf: text(root, [...detalle, "eNCF"]) ?? "",
    rncComprador: text(root, [...detalle, "RNCComprador"]) ?? "",
    estado: text(root, [...detalle, "Estado"]) ?? "",
    montoTotal: text(root, [...detalle, "MontoTotal"]),
  };
}

export interface AnecfRange {
  noLinea: string;
  tipo: string;
  desde: string;
  hasta: string;
}

export interface AnecfSummary {
  rncEmisor: string;
  ranges: AnecfRange[];
}

export function readAnecf(root: Element): AnecfSummary {
  const rncEmisor = text(root, ["Encabezado", "RncEmisor"]) ?? "";
  const ranges: AnecfRange[] = [];
  for (const anulacion of findAll(root, ["DetalleAnulacion", "Anulacion"])) {
    const noLinea = text(anulacion, ["NoLinea"]) ?? "";
    const tipo = text(anulacion, ["TipoeCF"]) ?? "";
    for (const secuencia of findAll(anulacion, ["TablaRangoSecuenciasAnuladaseNCF", "Secuencias"])) {
      ranges.push({
        noLinea,
        tipo,
        desde: text(secuencia, ["SecuenciaeNCFDesde"]) ?? "",
        hasta: text(secuencia, ["SecuenciaeNCFHasta"]) ?? "",
      });
    }
  }
  return { rncEmisor, ranges };
}

export function readSemilla(root: Element): { valor?: string; fecha?: string } {
  return { valor: text(root, ["valor"]), fecha: text(root, ["fecha"]) };
}
