/**
 * Document factories for tests: a realistic, complete, canonical e-CF of each type with N lines,
 * amounts that add up (lines at 18 % ITBIS where the type carries ITBIS, totals summed from the
 * lines, ITBIS rounded half-up per total), plus the auxiliary documents' inputs.
 *
 * Every leaf is a string exactly as written in XML (canonical form), so
 * `xmlToEcf(ecfToXml(doc))` deep-equals `doc`.
 */
import type { AcecfInput } from "../../src/documents/acecf.ts";
import type { AnecfInput } from "../../src/documents/anecf.ts";
import type { ArecfInput } from "../../src/documents/arecf.ts";
import type { TipoeCF } from "../../src/tipos.ts";

export type EcfDocument = Record<string, unknown>;

export interface EcfFactoryOptions {
  /** Number of detail lines (default 3). */
  lines?: number;
  /** Sequence number of the eNCF (default 1). */
  sequence?: number;
  /** dd-MM-yyyy (default 01-04-2025). */
  fechaEmision?: string;
  /** dd-MM-yyyy HH:mm:ss (default 01-04-2025 10:15:00). */
  fechaHoraFirma?: string;
  /** Prices large enough for the total to exceed 250,000 DOP (an E32 then identifies its buyer, as any E32 that large). */
  highValue?: boolean;
  /** Add OtraMoneda (USD at 58.7500) and per-line OtraMonedaDetalle. */
  otraMoneda?: boolean;
  /** Names and descriptions with & < > " ' accents, ñ, emoji, CR, LF and tab. */
  trickyText?: boolean;
  /** E33/E34: InformacionReferencia.CodigoModificacion (default "3"; E34 "2" = text correction, only MontoTotal). */
  codigoModificacion?: "1" | "2" | "3" | "4";
}

/** Text that needs escaping or is outside ASCII: each construct appears at least once. */
export const TRICKY_TEXT = {
  name: `Café & Té <Premium> "Añejo" 'Niño' 🇩🇴☕`,
  description: "Línea 1 con ñ\r\nLínea 2\tcon tabulador\rfin > ok",
  razonSocial: `Comercial Peña & Asociados "El Güero" <SRL>`,
} as const;

export const EMISOR_RNC = "130862346";
export const COMPRADOR_RNC = "131880738";

const ITBIS_RATE: Record<string, bigint> = { "1": 18n, "2": 16n, "3": 0n };

// ---------------------------------------------------------------------------------------------
// Exact money helpers (cents as bigint; unit prices in 1/10000)

function cents(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  return `${neg ? "-" : ""}${a / 100n}.${String(a % 100n).padStart(2, "0")}`;
}

function price4(n: bigint): string {
  // Unit prices keep up to 4 places, at least 2.
  const s = `${n / 10000n}.${String(n % 10000n).padStart(4, "0")}`;
  return s.replace(/(\.\d\d\d?)0+$/, "$1").replace(/(\.\d\d)0$/, "$1");
}

/** Half-up division of a non-negative numerator. */
function divRound(num: bigint, den: bigint): bigint {
  return (num * 2n + den) / (2n * den);
}

interface Line {
  qtyHundredths: bigint;
  price10k: bigint;
  montoCents: bigint;
  indicador: string;
}

function makeLines(count: number, highValue: boolean, indicador: string): Line[] {
  const out: Line[] = [];
  for (let i = 1; i <= count; i++) {
    const qtyHundredths = BigInt(i % 4 === 0 ? 150 : (i % 5) * 100 + 100); // 2.00, 3.00, 4.00, 1.50, 1.00...
    const base = highValue ? 12_500_000_000n : 1_000_000n; // 1,250,000.0000 or 100.0000
    const price10k = base + BigInt(i) * 1_250_500n; // + 125.05 per line: exercises 2-place prices
    const montoCents = divRound(qtyHundredths * price10k, 10000n);
    out.push({ qtyHundredths, price10k, montoCents, indicador });
  }
  return out;
}

function eNCF(tipo: TipoeCF, sequence: number): string {
  return `E${tipo}${String(sequence).padStart(10, "0")}`;
}

// ---------------------------------------------------------------------------------------------

/** A complete, canonical e-CF of type `tipo`. */
export function makeEcf(tipo: TipoeCF, options: EcfFactoryOptions = {}): EcfDocument {
  const n = options.lines ?? 3;
  const fecha = options.fechaEmision ?? "01-04-2025";
  const tricky = options.trickyText ?? false;
  const codigo = options.codigoModificacion ?? "3";
  const textOnly = tipo === "34" && codigo === "2";

  // Which ITBIS column the lines fall in: exempt types use 4, exports 3 (0 %), others 1 (18 %).
  const indicador = tipo === "43" || tipo === "44" || tipo === "47" ? "4" : tipo === "46" ? "3" : "1";
  const lines = textOnly
    ? [{ qtyHundredths: 100n, price10k: 0n, montoCents: 0n, indicador: "4" }]
    : makeLines(n, options.highValue ?? false, indicador);

  const gravado = lines.filter((l) => l.indicador !== "4").reduce((s, l) => s + l.montoCents, 0n);
  const exento = lines.filter((l) => l.indicador === "4").reduce((s, l) => s + l.montoCents, 0n);
  const rate = ITBIS_RATE[indicador] ?? 0n;
  const itbis = divRound(gravado * rate, 100n);
  const total = gravado + exento + itbis;
  const tipoCambio10k = 587500n; // 58.7500 DOP per USD

  const idDoc: Record<string, unknown> = { TipoeCF: tipo, eNCF: eNCF(tipo, options.sequence ?? 1) };
  if (tipo !== "32" && tipo !== "34") idDoc.FechaVencimientoSecuencia = "31-12-2026";
  if (tipo === "34") idDoc.IndicadorNotaCredito = "0";
  if (!["43", "47"].includes(tipo) && indicador !== "4" && tipo !== "46") idDoc.IndicadorMontoGravado = "0";
  if (!["41", "43", "47"].includes(tipo)) idDoc.TipoIngresos = "01";
  if (tipo !== "43") {
    idDoc.TipoPago = "1";
    if (tipo !== "34" && !textOnly) idDoc.TablaFormasPago = [{ FormaPago: "1", MontoPago: cents(total) }];
  } else {
    idDoc.TipoPago = "1";
  }

  const emisor: Record<string, unknown> = {
    RNCEmisor: EMISOR_RNC,
    RazonSocialEmisor: tricky ? TRICKY_TEXT.razonSocial : "IT SOLUCLICK SRL",
    NombreComercial: "Soluclick",
    DireccionEmisor: "Av. 27 de Febrero No. 1, Santo Domingo",
    Municipio: "010101",
    Provincia: "010000",
    TablaTelefonoEmisor: ["809-555-0101", "809-555-0102"],
    CorreoEmisor: "facturacion@soluclick.com.do",
    FechaEmision: fecha,
  };

  let comprador: Record<string, unknown> | undefined;
  switch (tipo) {
    case "43":
      comprador = undefined; // Gastos menores has no buyer area.
      break;
    case "46":
      comprador = {
        IdentificadorExtranjero: "US-884422",
        RazonSocialComprador: "Caribbean Imports LLC",
        PaisComprador: "ESTADOS UNIDOS",
      };
      break;
    case "47":
      comprador = { IdentificadorExtranjero: "ES-B12345678", RazonSocialComprador: "Servicios Técnicos Ibéricos SL" };
      break;
    case "32":
      // From DOP 250,000 an E32 must identify its buyer (and goes to DGII in full, not as RFCE).
      comprador =
        total >= 25_000_000n
          ? { RNCComprador: COMPRADOR_RNC, RazonSocialComprador: "DGII" }
          : { RazonSocialComprador: tricky ? TRICKY_TEXT.razonSocial : "CONSUMIDOR FINAL" };
      break;
    default:
      comprador = {
        RNCComprador: COMPRADOR_RNC,
        RazonSocialComprador: tricky ? TRICKY_TEXT.razonSocial : "DIRECCION GENERAL DE IMPUESTOS INTERNOS",
        CorreoComprador: "compras@dgii.gov.do",
        DireccionComprador: "Av. México No. 48, Gascue",
      };
  }

  const totales: Record<string, unknown> = {};
  if (textOnly) {
    totales.MontoTotal = "0.00";
  } else if (indicador === "1") {
    Object.assign(totales, {
      MontoGravadoTotal: cents(gravado),
      MontoGravadoI1: cents(gravado),
      ITBIS1: "18",
      TotalITBIS: cents(itbis),
      TotalITBIS1: cents(itbis),
      MontoTotal: cents(total),
    });
  } else if (indicador === "3") {
    Object.assign(totales, {
      MontoGravadoTotal: cents(gravado),
      MontoGravadoI3: cents(gravado),
      ITBIS3: "0",
      TotalITBIS: "0.00",
      TotalITBIS3: "0.00",
      MontoTotal: cents(total),
    });
  } else {
    Object.assign(totales, { MontoExento: cents(exento), MontoTotal: cents(total) });
  }

  // Withholdings: E41 withholds 30 % of ITBIS and 10 % ISR; E47 withholds 27 % ISR.
  const retenciones = lines.map((l) => {
    if (tipo === "41") {
      const lineItbis = divRound(l.montoCents * rate, 100n);
      return { itbis: divRound(lineItbis * 30n, 100n), isr: divRound(l.montoCents * 10n, 100n) };
    }
    if (tipo === "47") return { itbis: 0n, isr: divRound(l.montoCents * 27n, 100n) };
    return undefined;
  });
  if (tipo === "41") {
    totales.TotalITBISRetenido = cents(retenciones.reduce((s, r) => s + (r?.itbis ?? 0n), 0n));
    totales.TotalISRRetencion = cents(retenciones.reduce((s, r) => s + (r?.isr ?? 0n), 0n));
  }
  if (tipo === "47") totales.TotalISRRetencion = cents(retenciones.reduce((s, r) => s + (r?.isr ?? 0n), 0n));

  const encabezado: Record<string, unknown> = { Version: "1.0", IdDoc: idDoc, Emisor: emisor };
  if (comprador) encabezado.Comprador = comprador;

  if (tipo === "46") {
    encabezado.InformacionesAdicionales = {
      FechaEmbarque: fecha,
      NumeroEmbarque: "EMB-2025-0042",
      NumeroContenedor: "MSCU1234567",
      NombrePuertoEmbarque: "Puerto Caucedo",
      CondicionesEntrega: "FOB",
      TotalFob: cents(total),
      Seguro: "1250.00",
      Flete: "8400.50",
      TotalCif: cents(total + 125000n + 840050n),
      RegimenAduanero: "Exportación definitiva",
      NombrePuertoSalida: "Puerto Caucedo",
      NombrePuertoDesembarque: "Port of Miami",
      PesoBruto: "1250.50",
      PesoNeto: "1180.00",
      UnidadPesoBruto: "26",
      UnidadPesoNeto: "26",
      CantidadBulto: "12.00",
      UnidadBulto: "8",
    };
    encabezado.Transporte = {
      ViaTransporte: "02",
      PaisOrigen: "REPUBLICA DOMINICANA",
      DireccionDestino: "1015 N America Way, Miami, FL",
      PaisDestino: "ESTADOS UNIDOS",
      NombreCompaniaTransportista: "Naviera del Caribe SA",
      NumeroViaje: "VJ-778",
    };
  }
  encabezado.Totales = totales;

  if (options.otraMoneda) {
    const toUsd = (c: bigint) => divRound(c * 10000n, tipoCambio10k);
    const om: Record<string, unknown> = { TipoMoneda: "USD", TipoCambio: "58.7500" };
    if (indicador === "1") {
      Object.assign(om, {
        MontoGravadoTotalOtraMoneda: cents(toUsd(gravado)),
        MontoGravado1OtraMoneda: cents(toUsd(gravado)),
        TotalITBISOtraMoneda: cents(toUsd(itbis)),
        TotalITBIS1OtraMoneda: cents(toUsd(itbis)),
      });
    } else if (indicador === "3") {
      Object.assign(om, {
        MontoGravadoTotalOtraMoneda: cents(toUsd(gravado)),
        MontoGravado3OtraMoneda: cents(toUsd(gravado)),
      });
    } else {
      om.MontoExentoOtraMoneda = cents(toUsd(exento));
    }
    om.MontoTotalOtraMoneda = cents(toUsd(total));
    encabezado.OtraMoneda = om;
  }

  const items = lines.map((l, i) => {
    const item: Record<string, unknown> = { NumeroLinea: String(i + 1), IndicadorFacturacion: l.indicador };
    const r = retenciones[i];
    if (r) {
      item.Retencion = {
        IndicadorAgenteRetencionoPercepcion: "1",
        ...(tipo === "41" ? { MontoITBISRetenido: cents(r.itbis) } : {}),
        MontoISRRetenido: cents(r.isr),
      };
    }
    item.NombreItem = textOnly ? "Corrección de texto" : tricky ? TRICKY_TEXT.name : `Producto ${i + 1}`;
    item.IndicadorBienoServicio = i % 2 === 0 ? "1" : "2";
    if (tricky) item.DescripcionItem = TRICKY_TEXT.description;
    item.CantidadItem = cents(l.qtyHundredths);
    item.UnidadMedida = "43";
    item.PrecioUnitarioItem = price4(l.price10k);
    if (options.otraMoneda) {
      item.OtraMonedaDetalle = {
        PrecioOtraMoneda: price4(divRound(l.price10k * 10000n, tipoCambio10k)),
        MontoItemOtraMoneda: cents(divRound(l.montoCents * 10000n, tipoCambio10k)),
      };
    }
    item.MontoItem = cents(l.montoCents);
    return item;
  });

  const doc: EcfDocument = { Encabezado: encabezado, DetallesItems: items };
  if (tipo === "33" || tipo === "34") {
    doc.InformacionReferencia = {
      NCFModificado: eNCF(tipo === "33" ? "31" : "31", 42),
      FechaNCFModificado: "15-03-2025",
      CodigoModificacion: codigo,
      ...(textOnly ? { RazonModificacion: "Corrige el nombre del comprador" } : {}),
    };
  }
  doc.FechaHoraFirma = options.fechaHoraFirma ?? "01-04-2025 10:15:00";
  return doc;
}

/** The cases every XSD/round-trip test runs, per type: a name and the options. */
export function ecfCases(tipo: TipoeCF): [string, EcfFactoryOptions][] {
  const cases: [string, EcfFactoryOptions][] = [
    ["1 line", { lines: 1 }],
    ["3 lines", {}],
    ["50 lines", { lines: 50 }],
    ["other currency", { otraMoneda: true }],
    ["text needing escapes", { trickyText: true }],
  ];
  if (tipo === "32") cases.push(["above 250,000 DOP", { highValue: true }]);
  if (tipo === "33" || tipo === "34") cases.push(["CodigoModificacion 1", { codigoModificacion: "1" }]);
  if (tipo === "34") cases.push(["CodigoModificacion 2 (text only)", { codigoModificacion: "2" }]);
  return cases;
}

/** A buyer's acknowledgment (ARECF) of E310000000001: received. */
export const ARECF_INPUT: ArecfInput = {
  RNCEmisor: "130862346",
  RNCComprador: "131880738",
  eNCF: "E310000000001",
  Estado: "0",
  FechaHoraAcuseRecibo: "01-04-2025 10:20:00",
};

/** A buyer's commercial approval (ACECF) of E310000000001: accepted. */
export const ACECF_INPUT: AcecfInput = {
  RNCEmisor: "130862346",
  eNCF: "E310000000001",
  FechaEmision: "01-04-2025",
  MontoTotal: "35400.00",
  RNCComprador: "131880738",
  Estado: "1",
  FechaHoraAprobacionComercial: "02-04-2025 08:00:00",
};

/** A voiding (ANECF) of three ranges over two types: 6 + 1 + 100 = 107 e-NCF. */
export const ANECF_INPUT: AnecfInput = {
  RncEmisor: "130862346",
  FechaHoraAnulacioneNCF: "02-04-2025 08:00:00",
  DetalleAnulacion: [
    {
      TipoeCF: "31",
      TablaRangoSecuenciasAnuladaseNCF: [{ SecuenciaeNCFDesde: "E310000000010", SecuenciaeNCFHasta: "E310000000015" }],
    },
    {
      TipoeCF: "32",
      TablaRangoSecuenciasAnuladaseNCF: [
        { SecuenciaeNCFDesde: "E320000000100", SecuenciaeNCFHasta: "E320000000100" },
        { SecuenciaeNCFDesde: "E320000000200", SecuenciaeNCFHasta: "E320000000299" },
      ],
    },
  ],
};
