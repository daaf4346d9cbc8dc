/**
 * ANECF: voiding of unused e-NCF ranges (formato-anecf). The builder numbers the lines and
 * computes the counts (per line and in the header) from the ranges, so they always agree.
 */
import { isTipoeCF, type TipoeCF } from "../tipos.ts";
import { xmlToDocument } from "../xml/parse.ts";
import { buildDocumentXml, DocumentBuildError, requiredText } from "./build.ts";

export interface RangoSecuencias {
  SecuenciaeNCFDesde: string;
  SecuenciaeNCFHasta: string;
}

export interface AnulacionInput {
  TipoeCF: TipoeCF;
  /** Consecutive ranges of this type being voided (up to 10,000). */
  TablaRangoSecuenciasAnuladaseNCF: RangoSecuencias[];
}

export interface AnecfInput {
  RncEmisor: string;
  /** dd-MM-yyyy HH:mm:ss. */
  FechaHoraAnulacioneNCF: string;
  /** One entry per e-CF type, up to 10. */
  DetalleAnulacion: AnulacionInput[];
}

export interface Anulacion extends AnulacionInput {
  NoLinea: string;
  CantidadeNCFAnulados: string;
}

export interface AnecfDocument {
  Encabezado: { Version: string; RncEmisor: string; CantidadeNCFAnulados: string; FechaHoraAnulacioneNCF: string };
  DetalleAnulacion: Anulacion[];
}

// Serie (E-Z except P), type (2 digits), sequence (10 digits).
const ENCF = /^([E-OQ-Z])(\d{2})(\d{10})$/;

/** Number of e-NCF in a range, checking both ends belong to `tipo` and the same series. */
export function rangeSize(r: RangoSecuencias, tipo: TipoeCF): bigint {
  const a = ENCF.exec(r.SecuenciaeNCFDesde);
  const b = ENCF.exec(r.SecuenciaeNCFHasta);
  if (!a || !b)
    throw new DocumentBuildError(`malformed e-NCF in range ${r.SecuenciaeNCFDesde}–${r.SecuenciaeNCFHasta}`);
  if (a[1] !== b[1] || a[2] !== tipo || b[2] !== tipo) {
    throw new DocumentBuildError(
      `range ${r.SecuenciaeNCFDesde}–${r.SecuenciaeNCFHasta} must stay within series ${a[1]} and type ${tipo}`,
    );
  }
  const from = BigInt(a[3]!);
  const to = BigInt(b[3]!);
  if (from < 1n || to < from)
    throw new DocumentBuildError(`range ${r.SecuenciaeNCFDesde}–${r.SecuenciaeNCFHasta} is empty or starts at zero`);
  return to - from + 1n;
}

/** The complete ANECF document (numbered lines, counts computed). */
export function anecfFromInput(input: AnecfInput): AnecfDocument {
  if (input.DetalleAnulacion.length === 0) throw new DocumentBuildError("an ANECF voids at least one range");
  let total = 0n;
  const detalle = input.DetalleAnulacion.map((a, i) => {
    if (!isTipoeCF(a.TipoeCF)) throw new DocumentBuildError(`unknown TipoeCF ${String(a.TipoeCF)}`);
    if (a.TablaRangoSecuenciasAnuladaseNCF.length === 0) throw new DocumentBuildError(`line ${i + 1} has no ranges`);
    const count = a.TablaRangoSecuenciasAnuladaseNCF.reduce((s, r) => s + rangeSize(r, a.TipoeCF), 0n);
    total += count;
    return {
      NoLinea: String(i + 1),
      TipoeCF: a.TipoeCF,
      TablaRangoSecuenciasAnuladaseNCF: a.TablaRangoSecuenciasAnuladaseNCF.map((r) => ({
        SecuenciaeNCFDesde: r.SecuenciaeNCFDesde,
        SecuenciaeNCFHasta: r.SecuenciaeNCFHasta,
      })),
      CantidadeNCFAnulados: String(count),
    };
  });
  return {
    Encabezado: {
      Version: "1.0",
      RncEmisor: input.RncEmisor,
      CantidadeNCFAnulados: String(total),
      FechaHoraAnulacioneNCF: input.FechaHoraAnulacioneNCF,
    },
    DetalleAnulacion: detalle,
  };
}

/** ANECF XML (compact, canonical, ready to sign). */
export function buildAnecf(input: AnecfInput): string {
  return buildDocumentXml(anecfFromInput(input) as unknown as Record<string, unknown>, "ANECF");
}

/** Reads an ANECF (signed or not). */
export function parseAnecf(xml: string): AnecfDocument {
  const d = xmlToDocument(xml, "ANECF");
  const enc = d.Encabezado as Record<string, unknown> | undefined;
  const det = d.DetalleAnulacion;
  if (!enc || !Array.isArray(det)) throw new DocumentBuildError("not a complete ANECF");
  return {
    Encabezado: {
      Version: requiredText(enc.Version, "Version"),
      RncEmisor: requiredText(enc.RncEmisor, "RncEmisor"),
      CantidadeNCFAnulados: requiredText(enc.CantidadeNCFAnulados, "CantidadeNCFAnulados"),
      FechaHoraAnulacioneNCF: requiredText(enc.FechaHoraAnulacioneNCF, "FechaHoraAnulacioneNCF"),
    },
    DetalleAnulacion: det.map((x) => {
      const a = x as Record<string, unknown>;
      const rangos = a.TablaRangoSecuenciasAnuladaseNCF;
      // NoLinea may repeat in the schema (maxOccurs 10); we write and read one.
      const noLinea = Array.isArray(a.NoLinea) ? a.NoLinea[0] : a.NoLinea;
      return {
        NoLinea: requiredText(noLinea, "NoLinea"),
        TipoeCF: requiredText(a.TipoeCF, "TipoeCF") as TipoeCF,
        TablaRangoSecuenciasAnuladaseNCF: (Array.isArray(rangos) ? rangos : []).map((r) => {
          const o = r as Record<string, unknown>;
          return {
            SecuenciaeNCFDesde: requiredText(o.SecuenciaeNCFDesde, "SecuenciaeNCFDesde"),
            SecuenciaeNCFHasta: requiredText(o.SecuenciaeNCFHasta, "SecuenciaeNCFHasta"),
          };
        }),
        CantidadeNCFAnulados: requiredText(a.CantidadeNCFAnulados, "CantidadeNCFAnulados"),
      };
    }),
  };
}
