// What a submitted document is, read from its root element (and an e-CF's TipoeCF), and the few
// leaves the checks need. Read with plain patterns: this runs before (and whatever) the schema says.
import { isTipoeCF, type DocumentKind } from "@ecf/shared";

export interface Identified {
  kind: DocumentKind;
  /** First occurrence of a leaf element's text, if any. */
  leaf(name: string): string | undefined;
}

const ROOTS: Record<string, DocumentKind | "ECF"> = {
  ECF: "ECF",
  RFCE: "RFCE",
  ARECF: "ARECF",
  ACECF: "ACECF",
  ANECF: "ANECF",
};

/** The document's kind, or undefined when its root is none of the five DGII formats. */
export function identify(xml: string): Identified | undefined {
  const root = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<([A-Za-z_][\w.-]*)[\s>/]/.exec(xml)?.[1];
  const named = root ? ROOTS[root] : undefined;
  if (!named) return undefined;
  const leaf = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();
  if (named !== "ECF") return { kind: named, leaf };
  const tipo = leaf("TipoeCF");
  return isTipoeCF(tipo) ? { kind: tipo, leaf } : { kind: "31", leaf };
}

/** The leaf holding when the document was signed, by format. */
export const SIGNED_AT_LEAF: Record<string, string> = {
  RFCE: "FechaHoraFirma",
  ARECF: "FechaHoraAcuseRecibo",
  ACECF: "FechaHoraAprobacionComercial",
  ANECF: "FechaHoraAnulacioneNCF",
};
