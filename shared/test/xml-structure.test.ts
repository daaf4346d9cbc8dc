import { describe, expect, it } from "vitest";
import { checkStructure, TIPOS_ECF, type DocumentKind, type Problem } from "../src/index.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";

type Doc = Record<string, unknown>;
type Mutation = (d: Doc) => void;

const enc = (d: Doc) => d.Encabezado as Record<string, Record<string, unknown>>;
const item = (d: Doc, i = 0) => (d.DetallesItems as Doc[])[i]!;

function problemsAfter(tipo: DocumentKind, mutate: Mutation): Problem[] {
  const doc = makeEcf(tipo === "RFCE" ? "32" : (tipo as "31"), { lines: 2 });
  mutate(doc);
  return checkStructure(doc, tipo);
}

describe("checkStructure accepts the factory documents", () => {
  for (const tipo of TIPOS_ECF) {
    it.each(ecfCases(tipo))(`E${tipo}: %s`, (_name, options) => {
      expect(checkStructure(makeEcf(tipo, options), tipo)).toEqual([]);
    });
  }
});

describe("checkStructure reports", () => {
  it.each<[string, DocumentKind, Mutation, string, string, string?]>([
    // [case, kind, mutation, path, code, rule fragment]
    ["an unknown top-level key", "31", (d) => (d.Foo = "x"), "/Foo", "unknown_field"],
    ["an unknown nested key", "31", (d) => (enc(d).Emisor!.Apodo = "x"), "/Encabezado/Emisor/Apodo", "unknown_field"],
    [
      "an element of another type (E32 has no FechaVencimientoSecuencia)",
      "32",
      (d) => (enc(d).IdDoc!.FechaVencimientoSecuencia = "31-12-2026"),
      "/Encabezado/IdDoc/FechaVencimientoSecuencia",
      "unknown_field",
    ],
    ["the Signature as JSON", "31", (d) => (d.Signature = "x"), "/Signature", "unknown_field"],
    [
      "an object where a leaf goes",
      "31",
      (d) => (item(d).MontoItem = { v: 1 }),
      "/DetallesItems/0/MontoItem",
      "invalid_type",
    ],
    ["a boolean leaf", "31", (d) => (item(d).MontoItem = true), "/DetallesItems/0/MontoItem", "invalid_type"],
    ["an object where an array goes", "31", (d) => (d.DetallesItems = { Item: [] }), "/DetallesItems", "invalid_type"],
    ["an array where an object goes", "31", (d) => (enc(d).Emisor = [] as never), "/Encabezado/Emisor", "invalid_type"],
    ["a leaf where an object goes", "31", (d) => (d.Encabezado = "x"), "/Encabezado", "invalid_type"],
    [
      "null inside an array",
      "31",
      (d) => ((d.DetallesItems as unknown[])[1] = null),
      "/DetallesItems/1",
      "invalid_type",
    ],
    [
      "too many phones",
      "31",
      (d) => (enc(d).Emisor!.TablaTelefonoEmisor = ["809-555-0001", "809-555-0002", "809-555-0003", "809-555-0004"]),
      "/Encabezado/Emisor/TablaTelefonoEmisor",
      "too_many",
      "maxOccurs",
    ],
    [
      "too many payment forms",
      "31",
      (d) => (enc(d).IdDoc!.TablaFormasPago = Array.from({ length: 8 }, () => ({ FormaPago: "1", MontoPago: "1.00" }))),
      "/Encabezado/IdDoc/TablaFormasPago",
      "too_many",
    ],
    [
      "a too long text",
      "31",
      (d) => (item(d).NombreItem = "x".repeat(81)),
      "/DetallesItems/0/NombreItem",
      "invalid_format",
      "xsd:maxLength",
    ],
    [
      "an empty-length-checked code",
      "31",
      (d) => (enc(d).IdDoc!.eNCF = "E31000000001"),
      "/Encabezado/IdDoc/eNCF",
      "invalid_format",
      "xsd:minLength",
    ],
    [
      "a value outside the enumeration",
      "31",
      (d) => (enc(d).IdDoc!.TipoPago = "4"),
      "/Encabezado/IdDoc/TipoPago",
      "invalid_format",
      "xsd:enumeration",
    ],
    [
      "a currency outside the enumeration",
      "31",
      (d) => (enc(d).OtraMoneda = { TipoMoneda: "XXX" }),
      "/Encabezado/OtraMoneda/TipoMoneda",
      "invalid_format",
      "xsd:enumeration",
    ],
    [
      "three decimals in an amount",
      "31",
      (d) => (item(d).MontoItem = "10.123"),
      "/DetallesItems/0/MontoItem",
      "invalid_format",
      "xsd:fractionDigits",
    ],
    [
      "five decimals in a unit price",
      "31",
      (d) => (item(d).PrecioUnitarioItem = "1.12345"),
      "/DetallesItems/0/PrecioUnitarioItem",
      "invalid_format",
      "xsd:fractionDigits",
    ],
    [
      "a negative amount",
      "31",
      (d) => (item(d).MontoItem = "-1.00"),
      "/DetallesItems/0/MontoItem",
      "invalid_format",
      "xsd:pattern",
    ],
    [
      "a zero quantity (must be > 0)",
      "31",
      (d) => (item(d).CantidadItem = "0.00"),
      "/DetallesItems/0/CantidadItem",
      "invalid_format",
      "xsd:minExclusive",
    ],
    [
      "thousands separators",
      "31",
      (d) => (item(d).MontoItem = "1,000.00"),
      "/DetallesItems/0/MontoItem",
      "invalid_format",
      "xsd:decimal",
    ],
    [
      "an exponent from a JSON number",
      "31",
      (d) => (item(d).MontoItem = 1e21),
      "/DetallesItems/0/MontoItem",
      "invalid_format",
      "xsd:decimal",
    ],
    [
      "17 integer digits in an amount",
      "31",
      (d) => (item(d).MontoItem = "12345678901234567.00"),
      "/DetallesItems/0/MontoItem",
      "invalid_format",
      "xsd:pattern",
    ],
    [
      "too many digits",
      "31",
      (d) => (enc(d).Totales!.ITBIS1 = "118"),
      "/Encabezado/Totales/ITBIS1",
      "invalid_format",
      "xsd:totalDigits",
    ],
    [
      "a line number above 1000",
      "31",
      (d) => (item(d).NumeroLinea = "1001"),
      "/DetallesItems/0/NumeroLinea",
      "invalid_format",
      "xsd:maxInclusive",
    ],
    [
      "a decimal in an integer",
      "31",
      (d) => (item(d).NumeroLinea = "1.5"),
      "/DetallesItems/0/NumeroLinea",
      "invalid_format",
      "xsd:integer",
    ],
    [
      "an ISO date",
      "31",
      (d) => (enc(d).Emisor!.FechaEmision = "2025-04-01"),
      "/Encabezado/Emisor/FechaEmision",
      "invalid_format",
      "dd-MM-yyyy",
    ],
    [
      "a single-digit day",
      "31",
      (d) => (enc(d).Emisor!.FechaEmision = "1-04-2025"),
      "/Encabezado/Emisor/FechaEmision",
      "invalid_format",
      "dd-MM-yyyy",
    ],
    [
      "31 February",
      "31",
      (d) => (enc(d).Emisor!.FechaEmision = "31-02-2025"),
      "/Encabezado/Emisor/FechaEmision",
      "invalid_format",
      "dd-MM-yyyy",
    ],
    [
      "29 February of a common year",
      "31",
      (d) => (enc(d).Emisor!.FechaEmision = "29-02-2025"),
      "/Encabezado/Emisor/FechaEmision",
      "invalid_format",
      "dd-MM-yyyy",
    ],
    [
      "a 12-hour time",
      "31",
      (d) => (d.FechaHoraFirma = "01-04-2025 3:15 PM"),
      "/FechaHoraFirma",
      "invalid_format",
      "dd-MM-yyyy HH:mm:ss",
    ],
    [
      "hour 24",
      "31",
      (d) => (d.FechaHoraFirma = "01-04-2025 24:00:00"),
      "/FechaHoraFirma",
      "invalid_format",
      "dd-MM-yyyy HH:mm:ss",
    ],
    [
      "a malformed phone",
      "31",
      (d) => (enc(d).Emisor!.TablaTelefonoEmisor = ["8095550101"]),
      "/Encabezado/Emisor/TablaTelefonoEmisor/0",
      "invalid_format",
      "xsd:pattern",
    ],
    [
      "a malformed e-mail",
      "31",
      (d) => (enc(d).Emisor!.CorreoEmisor = "no-arroba"),
      "/Encabezado/Emisor/CorreoEmisor",
      "invalid_format",
      "xsd:pattern",
    ],
    [
      "an RNC of 10 digits",
      "31",
      (d) => (enc(d).Emisor!.RNCEmisor = "1234567890"),
      "/Encabezado/Emisor/RNCEmisor",
      "invalid_format",
      "xsd:pattern",
    ],
    [
      "a control character",
      "31",
      (d) => (item(d).NombreItem = "bell\u0007"),
      "/DetallesItems/0/NombreItem",
      "invalid_format",
      "xml:Char",
    ],
    [
      "a digit in a country name (E46)",
      "46",
      (d) => (enc(d).Comprador!.PaisComprador = "P4IS"),
      "/Encabezado/Comprador/PaisComprador",
      "invalid_format",
      "xsd:pattern",
    ],
  ])("%s", (_name, kind, mutate, path, code, rule) => {
    const problems = problemsAfter(kind, mutate);
    expect(problems).toHaveLength(1);
    const p = problems[0]!;
    expect(p).toMatchObject({ path, code, severity: "error" });
    expect(p.message).toMatch(/\S/);
    expect(p.messageEs).toMatch(/\S/);
    expect(p.messageEs).not.toBe(p.message);
    if (rule) expect(p.rule).toContain(rule);
  });

  it("does not report missing required elements (the obligation matrix does)", () => {
    const doc = makeEcf("31");
    delete enc(doc).Emisor!.RNCEmisor;
    delete doc.FechaHoraFirma;
    expect(checkStructure(doc, "31")).toEqual([]);
  });

  it("accepts JSON numbers and treats empty strings and null as absent", () => {
    const doc = makeEcf("31", { lines: 1 });
    Object.assign(item(doc), {
      NumeroLinea: 1,
      CantidadItem: 2,
      PrecioUnitarioItem: 100.5,
      MontoItem: 201,
      DescripcionItem: "",
      UnidadMedida: null,
    });
    expect(checkStructure(doc, "31")).toEqual([]);
  });

  it("accepts numeric enumerations by value, as XSD does (TipoPago 01)", () => {
    const doc = makeEcf("31", { lines: 1 });
    enc(doc).IdDoc!.TipoPago = "01";
    expect(checkStructure(doc, "31")).toEqual([]);
  });

  it("reports a document that is not an object", () => {
    expect(checkStructure([], "31")).toMatchObject([{ path: "", code: "invalid_type" }]);
  });

  it("reports every problem, each at its own path", () => {
    const doc = makeEcf("31", { lines: 2 });
    item(doc, 0).MontoItem = "x";
    item(doc, 1).NombreItem = "";
    item(doc, 1).Inventado = "1";
    expect(checkStructure(doc, "31").map((p) => `${p.code} ${p.path}`)).toEqual([
      "invalid_format /DetallesItems/0/MontoItem",
      "unknown_field /DetallesItems/1/Inventado",
    ]);
  });

  it("checks the auxiliary documents too (ANECF repeated NoLinea)", () => {
    const anecf = {
      Encabezado: {
        Version: "1.0",
        RncEmisor: "130862346",
        CantidadeNCFAnulados: "1",
        FechaHoraAnulacioneNCF: "02-04-2025 08:00:00",
      },
      DetalleAnulacion: [{ NoLinea: Array.from({ length: 11 }, (_, i) => String(i + 1)), TipoeCF: "31" }],
    };
    expect(checkStructure(anecf, "ANECF")).toMatchObject([{ path: "/DetalleAnulacion/0/NoLinea", code: "too_many" }]);
  });
});
