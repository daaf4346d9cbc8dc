// The QR timbre of the printed representation (RI): the DGII query URL for an e-CF
// (consultatimbre, 7 parameters) or for a consumer invoice under DOP 250,000 (consultatimbrefc, 4),
// and the security code, the first 6 characters of SignatureValue.

import { parseDecimal } from "../money.ts";
import { isUnderRfceThreshold } from "../rfce-threshold.ts";
import type { DgiiEnvironment } from "../tipos.ts";

export interface TimbreEcf {
  form: "consultatimbre";
  environment: DgiiEnvironment;
  rncEmisor: string;
  /** Omitted from the URL when the document has no buyer RNC (e.g. E43, E47, E32 to a consumer). */
  rncComprador?: string | null;
  encf: string;
  /** dd-MM-yyyy, as in the XML. */
  fechaEmision: string;
  /** As written in the XML (e.g. "6225.09"). */
  montoTotal: string;
  /** FechaHoraFirma, dd-MM-yyyy HH:mm:ss. */
  fechaFirma: string;
  codigoSeguridad: string;
}

export interface TimbreFc {
  form: "consultatimbrefc";
  environment: DgiiEnvironment;
  rncEmisor: string;
  encf: string;
  montoTotal: string;
  codigoSeguridad: string;
}

export type Timbre = TimbreEcf | TimbreFc;

const HOSTS = {
  consultatimbre: "https://ecf.dgii.gov.do",
  consultatimbrefc: "https://fc.dgii.gov.do",
} as const;

/** Percent-encodes a query value; ':' stays as is, as in DGII's published examples (RFC 3986 allows it). */
const encode = (value: string) => encodeURIComponent(value).replace(/%3A/g, ":");

/** The URL the QR code holds, parameters in DGII's order, every value URL-encoded. */
export function timbreUrl(timbre: Timbre): string {
  let params: Array<[string, string | null | undefined]>;
  switch (timbre.form) {
    case "consultatimbre":
      params = [
        ["RncEmisor", timbre.rncEmisor],
        ["RncComprador", timbre.rncComprador],
        ["ENCF", timbre.encf],
        ["FechaEmision", timbre.fechaEmision],
        ["MontoTotal", timbre.montoTotal],
        ["FechaFirma", timbre.fechaFirma],
        ["CodigoSeguridad", timbre.codigoSeguridad],
      ];
      break;
    case "consultatimbrefc":
      params = [
        ["RncEmisor", timbre.rncEmisor],
        ["ENCF", timbre.encf],
        ["MontoTotal", timbre.montoTotal],
        ["CodigoSeguridad", timbre.codigoSeguridad],
      ];
      break;
    default: {
      const _: never = timbre;
      throw new TypeError(`Unknown timbre form ${String((_ as { form?: unknown }).form)}`);
    }
  }
  const query = params
    .filter(([name, value]) => name !== "RncComprador" || (value !== undefined && value !== null && value !== ""))
    .map(([name, value]) => {
      if (value === undefined || value === null || value === "") throw new TypeError(`timbreUrl: ${name} is required`);
      return `${name}=${encode(value)}`;
    })
    .join("&");
  return `${HOSTS[timbre.form]}/${timbre.environment}/${timbre.form}?${query}`;
}

/** The security code: the first 6 characters of the document's SignatureValue. */
export function securityCode(signedXml: string): string {
  const m = /<(?:[A-Za-z_][\w.-]*:)?SignatureValue(?:\s[^>]*)?>([^<]*)</.exec(signedXml);
  const value = m?.[1]?.replace(/[\s]/g, "") ?? "";
  if (value.length < 6) throw new Error("securityCode: the document has no SignatureValue");
  return value.slice(0, 6);
}

function leaf(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m?.[1];
}

/** The leaves a timbre is made of, and the group of Encabezado each sits in (FechaHoraFirma: the root). */
const TIMBRE_LEAVES = {
  RNCEmisor: "Emisor",
  RNCComprador: "Comprador",
  eNCF: "IdDoc",
  FechaEmision: "Emisor",
  MontoTotal: "Totales",
  FechaHoraFirma: null,
} as const;
type TimbreLeaf = keyof typeof TIMBRE_LEAVES;

/** A timbre from its leaves as the signed e-CF writes them: an E32 under the limit gets the short form. */
function timbreFrom(
  leafOf: (name: TimbreLeaf) => string | undefined,
  codigoSeguridad: string,
  environment: DgiiEnvironment,
): Timbre {
  const required = (name: TimbreLeaf) => {
    const v = leafOf(name);
    if (v === undefined) throw new Error(`timbre: ${name} not found`);
    return v;
  };
  const encf = required("eNCF");
  const montoTotal = required("MontoTotal");
  const rncEmisor = required("RNCEmisor");
  const total = parseDecimal(montoTotal);
  if (encf.startsWith("E32") && total !== undefined && isUnderRfceThreshold(total)) {
    return { form: "consultatimbrefc", environment, rncEmisor, encf, montoTotal, codigoSeguridad };
  }
  return {
    form: "consultatimbre",
    environment,
    rncEmisor,
    rncComprador: leafOf("RNCComprador") ?? null,
    encf,
    fechaEmision: required("FechaEmision"),
    montoTotal,
    fechaFirma: required("FechaHoraFirma"),
    codigoSeguridad,
  };
}

/**
 * The timbre of a signed e-CF (or of the RFCE that summarises an E32 under DOP 250,000), read from
 * its XML.
 */
export function timbreForSignedEcf(signedXml: string, environment: DgiiEnvironment): Timbre {
  return timbreFrom((name) => leaf(signedXml, name), securityCode(signedXml), environment);
}

/**
 * The same timbre from the document a signed e-CF was serialized from (what `xmlToEcf` reads back
 * from it) and its security code: for a caller that has both and need not search the XML again.
 */
export function timbreForEcf(
  document: Record<string, unknown>,
  codigoSeguridad: string,
  environment: DgiiEnvironment,
): Timbre {
  const encabezado = (document.Encabezado ?? {}) as Record<string, Record<string, unknown> | undefined>;
  return timbreFrom(
    (name) => {
      const group = TIMBRE_LEAVES[name];
      const value = group === null ? document[name] : encabezado[group]?.[name];
      return typeof value === "string" ? value : undefined;
    },
    codigoSeguridad,
    environment,
  );
}
