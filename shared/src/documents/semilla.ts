/**
 * SemillaModel: the seed DGII hands out for authentication (GET semilla); the client signs it
 * and posts it back for a token. DGII's seed carries two namespace declarations on the root,
 * which we reproduce, so a seed we build (the sandbox) looks like DGII's byte for byte in shape.
 */
import { xmlToDocument } from "../xml/parse.ts";
import { buildDocumentXml, requiredText } from "./build.ts";

export interface SemillaInput {
  /** Opaque random value (DGII uses base64). */
  valor: string;
  /** xs:dateTime, e.g. 2025-01-25T13:33:57.395-04:00 (see formatXsDateTime). */
  fecha: string;
}

export type SemillaDocument = SemillaInput;

const DGII_ROOT =
  '<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">';

/** SemillaModel XML as DGII serves it (unsigned). */
export function buildSemilla(input: SemillaInput, options: { dgiiNamespaces?: boolean } = {}): string {
  const xml = buildDocumentXml({ valor: input.valor, fecha: input.fecha }, "Semilla");
  return options.dgiiNamespaces === false ? xml : xml.replace("<SemillaModel>", DGII_ROOT);
}

/** Reads a seed, signed or not. */
export function parseSemilla(xml: string): SemillaDocument {
  const d = xmlToDocument(xml, "Semilla");
  return { valor: requiredText(d.valor, "valor").trim(), fecha: requiredText(d.fecha, "fecha").trim() };
}
