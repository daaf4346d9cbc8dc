// The two documents a taxpayer signs for its certification: the postulación (who applies, which
// e-CF types it will issue, its receiver URLs) and the declaración jurada (its representative
// declares the software meets DGII's norms). Both are signed by the registered representative.
import { findAll, localName, parseXml, text, type XmlElement } from "../xml-read.ts";
import type { ReceiverUrls, TipoPostulante } from "./postulacion.ts";

export interface PostulacionDocument {
  rnc: string;
  razonSocial: string;
  representante: { cedula: string; nombre: string };
  tipoPostulante: TipoPostulante;
  rncProveedor?: string;
  tiposeCF: string[];
  urls: ReceiverUrls;
}

export interface DeclaracionDocument {
  rnc: string;
  representante: { cedula: string; nombre: string };
  declaracion: string;
}

/** A field the document lacks or carries wrongly, named as it is in the XML. */
export class DocumentError extends Error {}

const RNC = /^(\d{9}|\d{11})$/;
const CEDULA = /^\d{11}$/;
const URL = /^https?:\/\/\S+$/i;

function required(root: XmlElement, path: string[], pattern?: RegExp): string {
  const value = text(root, path);
  if (!value) throw new DocumentError(`Falta ${path.join("/")}`);
  if (pattern && !pattern.test(value)) throw new DocumentError(`${path.join("/")} no es válido: '${value}'`);
  return value;
}

function representante(root: XmlElement) {
  return {
    cedula: required(root, ["Representante", "Cedula"], CEDULA),
    nombre: required(root, ["Representante", "Nombre"]),
  };
}

function rootNamed(xml: string, name: string): XmlElement {
  const root = parseXml(xml);
  if (localName(root) !== name) throw new DocumentError(`Se esperaba ${name}, se recibió ${localName(root)}`);
  return root;
}

export function readPostulacion(xml: string): PostulacionDocument {
  const root = rootNamed(xml, "Postulacion");
  const tipo = text(root, ["TipoPostulante"]) ?? "Contribuyente";
  if (tipo !== "Contribuyente" && tipo !== "ProveedorServicios")
    throw new DocumentError(`TipoPostulante no es válido: '${tipo}'`);
  const tiposeCF = findAll(root, ["TiposeCF", "TipoeCF"]).map((node) => node.text.trim());
  if (!tiposeCF.length || tiposeCF.some((t) => !/^(31|32|33|34|41|43|44|45|46|47)$/.test(t)))
    throw new DocumentError("TiposeCF debe listar los tipos de e-CF que emitirá (31 a 47)");
  const rncProveedor = text(root, ["RNCProveedor"]);
  if (rncProveedor && !RNC.test(rncProveedor)) throw new DocumentError(`RNCProveedor no es válido: '${rncProveedor}'`);
  return {
    rnc: required(root, ["RNC"], RNC),
    razonSocial: required(root, ["RazonSocial"]),
    representante: representante(root),
    tipoPostulante: tipo,
    ...(rncProveedor ? { rncProveedor } : {}),
    tiposeCF,
    urls: {
      recepcion: required(root, ["URLRecepcion"], URL),
      aprobacionComercial: required(root, ["URLAprobacionComercial"], URL),
      autenticacion: required(root, ["URLAutenticacion"], URL),
    },
  };
}

export function readDeclaracion(xml: string): DeclaracionDocument {
  const root = rootNamed(xml, "DeclaracionJurada");
  return {
    rnc: required(root, ["RNC"], RNC),
    representante: representante(root),
    declaracion: required(root, ["Declaracion"]),
  };
}
