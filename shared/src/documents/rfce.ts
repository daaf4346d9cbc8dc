/**
 * RFCE: the summary DGII receives for a Factura de Consumo Electrónica (E32) under DOP 250,000
 * (formato-rfce). The full E32 stays with the issuer; DGII gets its header, totals and the
 * security code (first 6 characters of the E32's SignatureValue).
 */
import { formatMoney } from "../money.ts";
import { E32_RFCE_THRESHOLD, isRfceSummary, rfceMontoTotal } from "../rfce-threshold.ts";
import { documentModel, type ModelElement } from "../xml/model.ts";
import { xmlToDocument, xmlToEcf } from "../xml/parse.ts";
import { securityCode } from "../signing/timbre.ts";
import { buildDocumentXml, DocumentBuildError } from "./build.ts";

export interface RfceFormaDePago {
  FormaPago?: string;
  MontoPago?: string;
}
export interface RfceImpuestoAdicional {
  TipoImpuesto?: string;
  MontoImpuestoSelectivoConsumoEspecifico?: string;
  MontoImpuestoSelectivoConsumoAdvalorem?: string;
  OtrosImpuestosAdicionales?: string;
}
export interface RfceDocument {
  Encabezado: {
    Version: string;
    IdDoc: {
      TipoeCF: string;
      eNCF: string;
      TipoIngresos: string;
      TipoPago: string;
      TablaFormasPago?: RfceFormaDePago[];
    };
    Emisor: { RNCEmisor: string; RazonSocialEmisor: string; FechaEmision: string };
    Comprador?: { RNCComprador?: string; IdentificadorExtranjero?: string; RazonSocialComprador?: string };
    Totales: {
      MontoGravadoTotal?: string;
      MontoGravadoI1?: string;
      MontoGravadoI2?: string;
      MontoGravadoI3?: string;
      MontoExento?: string;
      TotalITBIS?: string;
      TotalITBIS1?: string;
      TotalITBIS2?: string;
      TotalITBIS3?: string;
      MontoImpuestoAdicional?: string;
      ImpuestosAdicionales?: RfceImpuestoAdicional[];
      MontoTotal: string;
      MontoNoFacturable?: string;
      MontoPeriodo?: string;
    };
    CodigoSeguridadeCF: string;
  };
}

export interface RfceInput {
  /** The E32 in canonical form (as built for signing). */
  ecf: Record<string, unknown>;
  /** First 6 characters of the signed E32's SignatureValue. */
  CodigoSeguridadeCF: string;
}

/** Copies from `source` exactly what the target model has, by element name, recursively. */
function project(source: unknown, el: ModelElement): unknown {
  if (el.shape === "leaf") return typeof source === "string" || typeof source === "number" ? source : undefined;
  if (el.shape === "array") {
    if (!Array.isArray(source)) return undefined;
    const item = el.item!;
    return source.map((x) => project(x, item)).filter((x) => x !== undefined);
  }
  if (typeof source !== "object" || source === null || Array.isArray(source)) return undefined;
  const out: Record<string, unknown> = {};
  for (const c of el.children!) {
    const v = project((source as Record<string, unknown>)[c.name], c);
    if (v !== undefined) out[c.name] = v;
  }
  return out;
}

/** True for an E32 whose MontoTotal is given and under DOP 250,000: it goes to DGII as an RFCE. */
export function isRfceEligible(ecf: Record<string, unknown>): boolean {
  return rfceMontoTotal(ecf) !== undefined && isRfceSummary(ecf);
}

/** The RFCE JSON document summarizing an E32. */
export function rfceFromEcf(input: RfceInput): RfceDocument {
  if (!isRfceEligible(input.ecf)) {
    throw new DocumentBuildError(`an RFCE summarizes an E32 under DOP ${formatMoney(E32_RFCE_THRESHOLD)}`);
  }
  if ([...input.CodigoSeguridadeCF].length !== 6) {
    throw new DocumentBuildError("CodigoSeguridadeCF must be the first 6 characters of the E32's SignatureValue");
  }
  const doc = project(input.ecf, documentModel("RFCE").root) as Record<string, Record<string, unknown>>;
  const comprador = doc.Encabezado?.Comprador as Record<string, unknown> | undefined;
  if (!comprador || Object.values(comprador).every((v) => v === "" || v === undefined)) {
    // The RFCE XSD requires <Comprador> while DGII forbids empty tags: the E32 must name its buyer
    // (RNCComprador, IdentificadorExtranjero or RazonSocialComprador, e.g. "CONSUMIDOR FINAL").
    throw new DocumentBuildError("the E32 has no Comprador data; the RFCE schema requires a non-empty Comprador");
  }
  doc.Encabezado = { ...doc.Encabezado, CodigoSeguridadeCF: input.CodigoSeguridadeCF };
  return doc as unknown as RfceDocument;
}

/** RFCE XML (compact, canonical, ready to sign) for an E32 under DOP 250,000. */
export function buildRfce(input: RfceInput): string {
  return buildDocumentXml(rfceFromEcf(input) as unknown as Record<string, unknown>, "RFCE");
}

/**
 * The RFCE of a signed E32 (formato-rfce): every element from the E32 exactly as it was signed,
 * and CodigoSeguridadeCF = the first 6 characters of that signature's SignatureValue, so the
 * summary DGII receives can only describe the document the buyer holds. Throws
 * DocumentBuildError for an unsigned document, another type, or an E32 of DOP 250,000 or more.
 */
export function buildRfceFromSignedEcf(signedEcfXml: string): string {
  let codigo: string;
  try {
    codigo = securityCode(signedEcfXml);
  } catch {
    throw new DocumentBuildError(
      "the E32 is not signed: an RFCE is built from the signed E32 (its CodigoSeguridadeCF comes from the signature)",
    );
  }
  return buildRfce({ ecf: xmlToEcf(signedEcfXml), CodigoSeguridadeCF: codigo });
}

/** Reads an RFCE (signed or not). */
export function parseRfce(xml: string): RfceDocument {
  const doc = xmlToDocument(xml, "RFCE") as unknown as RfceDocument;
  if (!doc.Encabezado?.IdDoc || !doc.Encabezado.Totales) throw new DocumentBuildError("not a complete RFCE");
  return doc;
}
