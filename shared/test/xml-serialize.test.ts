import { describe, expect, it } from "vitest";
import { documentToXml, ecfToXml, escapeXmlText, XML_DECLARATION, XmlSerializeError } from "../src/index.ts";
import { makeEcf, TRICKY_TEXT } from "./support/ecf-factories.ts";

describe("escapeXmlText (C14N text escaping)", () => {
  it.each([
    ["plain", "plain"],
    ["a & b", "a &amp; b"],
    ["<tag>", "&lt;tag&gt;"],
    [`"double" 'single'`, `"double" 'single'`],
    ["line\r\nnext", "line&#xD;\nnext"],
    ["tab\there", "tab\there"],
    ["ñandú Café 🇩🇴", "ñandú Café 🇩🇴"],
    ["&amp;", "&amp;amp;"],
  ])("%j → %j", (input, expected) => {
    expect(escapeXmlText(input)).toBe(expected);
  });

  it.each(["\u0000", "bell\u0007", "\u001F", "\uFFFE", "a & b\u0000"])(
    "refuses characters XML cannot carry: %j",
    (bad) => {
      expect(() => escapeXmlText(bad)).toThrow(XmlSerializeError);
    },
  );
});

describe("ecfToXml", () => {
  it("starts with DGII's declaration and the ECF root, with no whitespace between elements", () => {
    const xml = ecfToXml(makeEcf("31"));
    expect(
      xml.startsWith(`${XML_DECLARATION}<ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF>`),
    ).toBe(true);
    expect(xml.endsWith("<FechaHoraFirma>01-04-2025 10:15:00</FechaHoraFirma></ECF>")).toBe(true);
    expect(xml).not.toMatch(/>\s+</);
    expect(xml).not.toMatch(/<(\w+)><\/\1>|<\w+\/>/);
  });

  it("follows the XSD sequence whatever the JSON key order", () => {
    const doc = makeEcf("31");
    const reversed = Object.fromEntries(Object.entries(doc).reverse());
    const enc = doc.Encabezado as Record<string, unknown>;
    reversed.Encabezado = Object.fromEntries(Object.entries(enc).reverse());
    const items = doc.DetallesItems as Record<string, unknown>[];
    reversed.DetallesItems = items.map((i) => Object.fromEntries(Object.entries(i).reverse()));
    expect(ecfToXml(reversed)).toBe(ecfToXml(doc));
  });

  it("follows the XSD sequence when only one key, late in an object, is out of place", () => {
    const doc = makeEcf("31", { lines: 2 });
    const items = doc.DetallesItems as Record<string, unknown>[];
    const moved = structuredClone(doc) as Record<string, unknown>;
    moved.DetallesItems = items.map(({ NumeroLinea, ...rest }) => ({ ...rest, Inventado: "x", NumeroLinea }));
    expect(ecfToXml(moved)).toBe(ecfToXml(doc));
  });

  it("puts FechaHoraFirma last even when given first", () => {
    const { FechaHoraFirma, ...rest } = makeEcf("33");
    const xml = ecfToXml({ FechaHoraFirma, ...rest });
    expect(xml).toMatch(/<\/InformacionReferencia><FechaHoraFirma>[^<]+<\/FechaHoraFirma><\/ECF>$/);
  });

  it("writes arrays as their XSD containers", () => {
    const xml = ecfToXml(makeEcf("31", { lines: 2 }));
    expect(xml).toContain(
      "<TablaTelefonoEmisor><TelefonoEmisor>809-555-0101</TelefonoEmisor><TelefonoEmisor>809-555-0102</TelefonoEmisor></TablaTelefonoEmisor>",
    );
    expect(xml).toContain("<TablaFormasPago><FormaDePago><FormaPago>1</FormaPago>");
    expect(xml.match(/<Item>/g)).toHaveLength(2);
    expect(xml).toContain("<DetallesItems><Item><NumeroLinea>1</NumeroLinea>");
  });

  it("omits empty strings, null, empty objects and arrays, and unknown keys", () => {
    const doc = makeEcf("31", { lines: 1 });
    const enc = doc.Encabezado as Record<string, Record<string, unknown>>;
    enc.Emisor!.NombreComercial = "";
    enc.Emisor!.Sucursal = null;
    enc.Emisor!.TablaTelefonoEmisor = [];
    enc.Transporte = {};
    enc.Emisor!.Inventado = "x";
    (doc as Record<string, unknown>).Extra = { a: "b" };
    const xml = ecfToXml(doc);
    for (const absent of ["NombreComercial", "Sucursal", "TablaTelefonoEmisor", "Transporte", "Inventado", "Extra"]) {
      expect(xml).not.toContain(absent);
    }
  });

  it("writes JSON numbers through their text, never through arithmetic", () => {
    const doc = makeEcf("31", { lines: 1 });
    const item = (doc.DetallesItems as Record<string, unknown>[])[0]!;
    item.CantidadItem = 2;
    item.PrecioUnitarioItem = 0.1;
    item.NumeroLinea = 1;
    const xml = ecfToXml(doc);
    expect(xml).toContain("<NumeroLinea>1</NumeroLinea>");
    expect(xml).toContain("<CantidadItem>2</CantidadItem>");
    expect(xml).toContain("<PrecioUnitarioItem>0.1</PrecioUnitarioItem>");
  });

  it("escapes text exactly once and keeps quotes, accents and emoji", () => {
    const xml = ecfToXml(makeEcf("31", { lines: 1, trickyText: true }));
    expect(xml).toContain("<NombreItem>Café &amp; Té &lt;Premium&gt; \"Añejo\" 'Niño' 🇩🇴☕</NombreItem>");
    expect(xml).toContain(
      "<DescripcionItem>Línea 1 con ñ&#xD;\nLínea 2\tcon tabulador&#xD;fin &gt; ok</DescripcionItem>",
    );
    expect(TRICKY_TEXT.name).toContain("&");
  });

  it.each([
    ["not an object", 42, /TipoeCF/],
    ["no TipoeCF", { Encabezado: {} }, /TipoeCF/],
    ["unknown TipoeCF", { Encabezado: { IdDoc: { TipoeCF: "99" } } }, /TipoeCF/],
  ])("rejects %s", (_name, doc, message) => {
    expect(() => ecfToXml(doc)).toThrow(message);
  });

  it("documentToXml rejects a document that is not an object", () => {
    expect(() => documentToXml([], "ARECF")).toThrow(/must be an object/);
  });

  it("rejects a wrong JSON shape instead of writing nonsense", () => {
    const doc = makeEcf("31", { lines: 1 });
    doc.DetallesItems = { Item: {} };
    expect(() => ecfToXml(doc)).toThrow(/DetallesItems: expected an array/);
  });

  it("repeats a repeatable leaf given as an array (ANECF NoLinea)", () => {
    const xml = documentToXml(
      { Encabezado: { Version: "1.0" }, DetalleAnulacion: [{ NoLinea: ["1", "2"], TipoeCF: "31" }] },
      "ANECF",
      { declaration: false },
    );
    expect(xml).toBe(
      "<ANECF><Encabezado><Version>1.0</Version></Encabezado><DetalleAnulacion><Anulacion><NoLinea>1</NoLinea><NoLinea>2</NoLinea><TipoeCF>31</TipoeCF></Anulacion></DetalleAnulacion></ANECF>",
    );
  });
});
