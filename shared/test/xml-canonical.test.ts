import { describe, expect, it } from "vitest";
import { canonicalize, checkStructure, ecfToXml, TIPOS_ECF, xmlToEcf } from "../src/index.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";

type Doc = Record<string, unknown>;
const item = (d: Doc) => (d.DetallesItems as Doc[])[0]!;
const enc = (d: Doc) => d.Encabezado as Record<string, Record<string, unknown>>;

describe("canonicalize leaves the factory documents unchanged (they are canonical)", () => {
  for (const tipo of TIPOS_ECF) {
    it.each(ecfCases(tipo))(`E${tipo}: %s`, (_name, options) => {
      const doc = makeEcf(tipo, options);
      const r = canonicalize(doc, tipo);
      expect(r.problems).toEqual([]);
      expect(r.document).toEqual(doc);
      expect(ecfToXml(r.document)).toBe(ecfToXml(doc));
    });
  }
});

describe("canonicalize a request line", () => {
  it.each<[string, string, unknown, string]>([
    // [case, element, input, canonical text]
    ["amount as JSON integer", "MontoItem", 200, "200.00"],
    ["amount with one decimal", "MontoItem", "97.2", "97.20"],
    ["amount as JSON decimal", "MontoItem", 97.2, "97.20"],
    ["amount with leading zeros and plus", "MontoItem", "+007.5", "7.50"],
    ["amount starting with a point", "MontoItem", ".5", "0.50"],
    ["amount trailing zeros beyond 2", "MontoItem", "10.500", "10.50"],
    ["amount with surrounding spaces", "MontoItem", " 12.30 ", "12.30"],
    ["zero amount", "MontoItem", "0", "0.00"],
    ["amount below one, already canonical", "MontoItem", "0.05", "0.05"],
    ["amount with two leading zeros", "MontoItem", "00.50", "0.50"],
    ["amount with a trailing point", "MontoItem", "12.", "12.00"],
    ["quantity (2 places per formato-ecf)", "CantidadItem", 2, "2.00"],
    ["unit price keeps 4 places", "PrecioUnitarioItem", "12.3456", "12.3456"],
    ["unit price keeps 3 places", "PrecioUnitarioItem", 0.125, "0.125"],
    ["unit price padded to 2 places", "PrecioUnitarioItem", 100, "100.00"],
    ["unit price with a zero beyond 4 places", "PrecioUnitarioItem", "1.23450", "1.2345"],
    ["integer from JSON number", "NumeroLinea", 1, "1"],
    ["integer with leading zeros", "NumeroLinea", "001", "1"],
    ["integer with a trailing point", "NumeroLinea", "7.", "7"],
    ["numeric enumeration takes its own spelling", "IndicadorFacturacion", "01", "1"],
    ["text kept byte for byte", "NombreItem", "  Café & Té\r\n ", "  Café & Té\r\n "],
  ])("%s: %s %j → %s", (_name, element, input, expected) => {
    const doc = makeEcf("31", { lines: 1 });
    item(doc)[element] = input;
    const r = canonicalize(doc, "31");
    expect(r.problems).toEqual([]);
    expect(item(r.document)[element]).toBe(expected);
  });

  it.each<[string, string, unknown, string]>([
    ["three decimals in an amount are not rounded", "MontoItem", "10.005", "xsd:fractionDigits"],
    ["float noise is not rounded", "MontoItem", 0.1 + 0.2, "xsd:fractionDigits"],
    ["five decimals in a unit price", "PrecioUnitarioItem", "1.00001", "xsd:fractionDigits"],
    ["exponent notation", "MontoItem", 1e21, "xsd:decimal"],
    ["thousands separators", "MontoItem", "1,000.00", "xsd:decimal"],
    ["a fraction in an integer", "NumeroLinea", "1.5", "xsd:integer"],
    ["not a number", "MontoItem", Number.NaN, "number"],
    ["a letter for a numeric code", "IndicadorFacturacion", "x", "xsd:enumeration"],
  ])("reports %s and keeps the text", (_name, element, input, rule) => {
    const doc = makeEcf("31", { lines: 1 });
    item(doc)[element] = input;
    const r = canonicalize(doc, "31");
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ path: `/DetallesItems/0/${element}`, code: "invalid_format" });
    expect(r.problems[0]!.rule).toContain(rule);
    expect(item(r.document)[element]).toBe(typeof input === "number" && Number.isFinite(input) ? String(input) : input);
  });

  it('tells a code field (TipoPago "x") it is a code, naming the codes, not that it is no plain decimal', () => {
    const doc = makeEcf("31", { lines: 1 }) as { Encabezado: { IdDoc: Record<string, unknown> } };
    doc.Encabezado.IdDoc.TipoPago = "x";
    const r = canonicalize(doc, "31");
    expect(r.problems).toEqual([
      expect.objectContaining({ path: "/Encabezado/IdDoc/TipoPago", code: "invalid_format" }),
    ]);
    expect(r.problems[0]!.message).toBe("TipoPago is a code: one of 1, 2, 3");
    expect(r.problems[0]!.message).not.toMatch(/decimal/);
  });
});

describe("canonicalize the document", () => {
  it("turns a JSON request into the canonical document (Version, amounts, drops empties)", () => {
    const request = {
      Encabezado: {
        Version: 1.0,
        IdDoc: {
          TipoeCF: 31,
          eNCF: "E310000000001",
          FechaVencimientoSecuencia: "31-12-2026",
          TipoIngresos: "01",
          TipoPago: 1,
          TablaFormasPago: [{ FormaPago: 1, MontoPago: 236 }, {}],
        },
        Emisor: {
          RNCEmisor: "130862346",
          RazonSocialEmisor: "X",
          NombreComercial: "",
          Sucursal: null,
          DireccionEmisor: "Calle 1",
          FechaEmision: "01-04-2025",
        },
        Comprador: { RNCComprador: "131880738", RazonSocialComprador: "DGII" },
        Transporte: { Conductor: "" },
        Totales: {
          MontoGravadoTotal: 200,
          MontoGravadoI1: 200,
          ITBIS1: 18,
          TotalITBIS: 36,
          TotalITBIS1: 36,
          MontoTotal: 236,
        },
      },
      DetallesItems: [
        {
          NumeroLinea: 1,
          IndicadorFacturacion: 1,
          NombreItem: "Producto",
          IndicadorBienoServicio: 1,
          CantidadItem: 2,
          PrecioUnitarioItem: "100.00",
          MontoItem: "200.00",
        },
      ],
      FechaHoraFirma: "01-04-2025 10:15:00",
    };
    const { document, problems } = canonicalize(request, "31");
    expect(problems).toEqual([]);
    expect(document).toEqual({
      Encabezado: {
        Version: "1.0",
        IdDoc: {
          TipoeCF: "31",
          eNCF: "E310000000001",
          FechaVencimientoSecuencia: "31-12-2026",
          TipoIngresos: "01",
          TipoPago: "1",
          TablaFormasPago: [{ FormaPago: "1", MontoPago: "236.00" }],
        },
        Emisor: {
          RNCEmisor: "130862346",
          RazonSocialEmisor: "X",
          DireccionEmisor: "Calle 1",
          FechaEmision: "01-04-2025",
        },
        Comprador: { RNCComprador: "131880738", RazonSocialComprador: "DGII" },
        Totales: {
          MontoGravadoTotal: "200.00",
          MontoGravadoI1: "200.00",
          ITBIS1: "18",
          TotalITBIS: "36.00",
          TotalITBIS1: "36.00",
          MontoTotal: "236.00",
        },
      },
      DetallesItems: [
        {
          NumeroLinea: "1",
          IndicadorFacturacion: "1",
          NombreItem: "Producto",
          IndicadorBienoServicio: "1",
          CantidadItem: "2.00",
          PrecioUnitarioItem: "100.00",
          MontoItem: "200.00",
        },
      ],
      FechaHoraFirma: "01-04-2025 10:15:00",
    });
    expect(checkStructure(document, "31")).toEqual([]);
    expect(xmlToEcf(ecfToXml(document))).toEqual(document);
  });

  it("keeps unknown keys and wrong shapes for the structure check to report", () => {
    const doc = makeEcf("31", { lines: 1 });
    enc(doc).Emisor!.Apodo = "x";
    item(doc).MontoItem = { wrong: true };
    const { document, problems } = canonicalize(doc, "31");
    expect(problems).toEqual([]);
    expect(checkStructure(document, "31").map((p) => p.code)).toEqual(["unknown_field", "invalid_type"]);
  });

  it("formats amounts of the auxiliary documents too (ACECF MontoTotal needs 2 places)", () => {
    const { document } = canonicalize({ DetalleAprobacionComercial: { MontoTotal: 35400, Version: "1.0" } }, "ACECF");
    expect(document).toEqual({ DetalleAprobacionComercial: { Version: "1.0", MontoTotal: "35400.00" } });
  });

  it("rejects a document that is not an object", () => {
    expect(canonicalize("x", "31").problems).toMatchObject([{ code: "invalid_type" }]);
  });
});
