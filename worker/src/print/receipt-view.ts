// What the printed representation shows, read from an e-CF's JSON document (xmlToEcf), in the
// words DGII asks for (informe-tecnico §17.2): type and modification code in words, places and
// units by name, the exempt marker "E" on exempt lines.
import { ENUMERACIONES, provinciaMunicipio, unidadMedida, type JsonDocument, objAt } from "@ecf/shared";

export interface ReceiptLine {
  cantidad: string;
  /** IndicadorFacturacion: 1-3 taxed (18 %, 16 %, 0 %), 4 exempt, 0 not billable. */
  indicador: string;
  exento: boolean;
  descripcion: string;
  unidad: string;
  precio: string;
  descuento: string | undefined;
  valor: string;
}

export interface ReceiptView {
  tipo: string;
  tipoEnPalabras: string;
  encf: string;
  /** IndicadorEnvioDiferido 1: printed before DGII had it, so the link is DGII's "Enlace consulta proveedor electrónico". */
  envioDiferido: boolean;
  /** FechaVencimientoSecuencia; not printed for E32 and E34. */
  fechaVencimiento: string | undefined;
  ncfModificado: string | undefined;
  codigoModificacionEnPalabras: string | undefined;
  emisor: {
    nombreComercial: string | undefined;
    razonSocial: string;
    rnc: string;
    direccion: string | undefined;
    municipio: string | undefined;
    provincia: string | undefined;
    fechaEmision: string;
  };
  comprador: { razonSocial: string | undefined; rnc: string | undefined } | undefined;
  lines: ReceiptLine[];
  /** ITBIS rates (percent) by IndicadorFacturacion 1-3: Totales ITBIS1-3, else DGII's 18, 16, 0. */
  itbisRates: Record<"1" | "2" | "3", string>;
  /** IndicadorMontoGravado 1: line amounts include ITBIS. */
  montoGravadoIncluyeItbis: boolean;
  /** The document carries additional taxes (ISC and others), whose per-line amounts the XML does not hold. */
  tieneImpuestoAdicional: boolean;
  /** Label and amount, in print order; only those present. */
  totals: [string, string][];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (objAt(v) as Obj | undefined) ?? {};
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

function describe(enumeration: keyof typeof ENUMERACIONES, valor: string | undefined): string | undefined {
  if (valor === undefined) return undefined;
  const values = ENUMERACIONES[enumeration].values as readonly { valor: string; descripcion: string }[];
  return values.find((v) => v.valor === valor)?.descripcion ?? valor;
}

const TOTALS: [string, string][] = [
  ["MontoGravadoTotal", "Subtotal Gravado"],
  ["MontoExento", "Subtotal Exento"],
  ["MontoImpuestoAdicional", "Total ISC"],
  ["TotalITBIS", "Total ITBIS"],
  ["MontoTotal", "Total"],
  ["TotalITBISRetenido", "ITBIS Retenido"],
  ["TotalISRRetencion", "ISR Retenido"],
  ["MontoPeriodo", "Monto del Período"],
  ["ValorPagar", "Valor a Pagar"],
];

export function receiptView(document: JsonDocument): ReceiptView {
  const encabezado = obj(document.Encabezado);
  const idDoc = obj(encabezado.IdDoc);
  const emisor = obj(encabezado.Emisor);
  const comprador = encabezado.Comprador === undefined ? undefined : obj(encabezado.Comprador);
  const totales = obj(encabezado.Totales);
  const referencia = obj(document.InformacionReferencia);
  const tipo = str(idDoc.TipoeCF) ?? "";
  // Notes modify a receipt; an E31 may replace a consumer receipt (CodigoModificacion 5, formato-ecf note 81).
  const modifies = tipo === "33" || tipo === "34" || (tipo === "31" && str(referencia.CodigoModificacion) === "5");
  const items = Array.isArray(document.DetallesItems) ? document.DetallesItems : [];

  return {
    tipo,
    tipoEnPalabras: describe("tipo_ecf", tipo) ?? tipo,
    encf: str(idDoc.eNCF) ?? "",
    envioDiferido: str(idDoc.IndicadorEnvioDiferido) === "1",
    fechaVencimiento: tipo === "32" || tipo === "34" ? undefined : str(idDoc.FechaVencimientoSecuencia),
    ncfModificado: modifies ? str(referencia.NCFModificado) : undefined,
    codigoModificacionEnPalabras: modifies
      ? describe("codigo_modificacion", str(referencia.CodigoModificacion))
      : undefined,
    emisor: {
      nombreComercial: str(emisor.NombreComercial),
      razonSocial: str(emisor.RazonSocialEmisor) ?? "",
      rnc: str(emisor.RNCEmisor) ?? "",
      direccion: str(emisor.DireccionEmisor),
      municipio: provinciaMunicipio(str(emisor.Municipio))?.descripcion ?? str(emisor.Municipio),
      provincia: provinciaMunicipio(str(emisor.Provincia))?.descripcion ?? str(emisor.Provincia),
      fechaEmision: str(emisor.FechaEmision) ?? "",
    },
    comprador: comprador && {
      razonSocial: str(comprador.RazonSocialComprador),
      rnc: str(comprador.RNCComprador) ?? str(comprador.IdentificadorExtranjero),
    },
    lines: items.map((raw) => {
      const item = obj(raw);
      const unidad = str(item.UnidadMedida);
      return {
        cantidad: str(item.CantidadItem) ?? "",
        indicador: str(item.IndicadorFacturacion) ?? "",
        exento: str(item.IndicadorFacturacion) === "4",
        descripcion: str(item.NombreItem) ?? "",
        unidad: unidadMedida(unidad)?.descripcion ?? unidad ?? "",
        precio: str(item.PrecioUnitarioItem) ?? "",
        descuento: str(item.DescuentoMonto),
        valor: str(item.MontoItem) ?? "",
      };
    }),
    itbisRates: { "1": str(totales.ITBIS1) ?? "18", "2": str(totales.ITBIS2) ?? "16", "3": str(totales.ITBIS3) ?? "0" },
    montoGravadoIncluyeItbis: str(idDoc.IndicadorMontoGravado) === "1",
    tieneImpuestoAdicional: (str(totales.MontoImpuestoAdicional) ?? "0").replace(/[0.]/g, "") !== "",
    totals: TOTALS.filter(([field]) => str(totales[field]) !== undefined).map(([field, label]) => [
      label,
      str(totales[field])!,
    ]),
  };
}
