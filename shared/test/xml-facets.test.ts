import { describe, expect, it } from "vitest";
import { checkFacets, compareXsdDecimal, documentModel, modelElementAt, parseXsdDecimal, xsdDecimalDigits, xsdPatternToRegExp, type RawFacets } from "../src/index.ts";

describe("xsdPatternToRegExp (XSD regex semantics)", () => {
  it.each<[string, string, boolean]>([
    ["[0-9]{11}|[0-9]{9}", "130862346", true],
    ["[0-9]{11}|[0-9]{9}", "1308623461", false], // implicitly anchored, alternatives included
    ["[0-9]{1,16}(\\.[0-9]{1,2})?", "12.345", false],
    ["[0-9]{1,3}(.[0-9]{1,4})?", "58x7500", true], // an unescaped dot is any character, as DGII wrote it
    ["^[a-z]*$", "abc", false], // ^ and $ are plain characters in XSD
    ["^[a-z]*$", "^abc$", true],
    ["(3[01]|[12][0-9]|0?[1-9])\\-(1[012]|0?[1-9])\\-((19|20)\\d{2})", "01-04-2025", true],
    ["[\\s\\d\\w]{1,15}", "30 días año", true], // \w covers accented letters
    ["[\\s\\d\\w]{1,15}", "30-días", false], // '-' is punctuation, not \w
    ["\\d{3}-\\d{3}-\\d{4}", "809-555-0101", true],
    ["\\w+([-+.]\\w+)*@\\w+([-.]\\w+)*\\.\\w+([-.]\\w+)*", "ventas@empresa.com.do", true],
    ["(\\D[^0-9]+[a-zA-ZñÑáéíóúÁÉÍÓÚ])", "ESTADOS UNIDOS", true],
    ["(\\D[^0-9]+[a-zA-ZñÑáéíóúÁÉÍÓÚ])", "P4IS", false],
    [".{6}", "ab\ncde", false], // '.' excludes line breaks
    [".{6}", "a+/=9Z", true],
  ])("%s ~ %j → %s", (pattern, value, expected) => {
    const re = xsdPatternToRegExp(pattern);
    expect(re).not.toBeNull();
    expect(re!.test(value)).toBe(expected);
  });
});

describe("exact decimals", () => {
  it.each<[string, string, number]>([
    ["1.0", "1", 0],
    ["0.10", "0.1", 0],
    ["-0", "0", 0],
    ["10", "9.99", 1],
    ["-10", "-9.99", -1],
    ["0.01", "0", 1],
    ["123456789012345678.01", "123456789012345678.02", -1], // beyond float precision
    ["007", "7.000", 0],
  ])("compare %s vs %s → %d", (a, b, expected) => {
    expect(compareXsdDecimal(parseXsdDecimal(a)!, parseXsdDecimal(b)!)).toBe(expected);
  });

  it.each([["1e5"], ["1,000"], [""], ["."], ["+-1"], ["0x10"], [" 1"]])("%j is not an xs:decimal lexical form", (text) => {
    expect(parseXsdDecimal(text)).toBeUndefined();
  });

  it.each<[string, number, number]>([
    ["0012.3400", 4, 2],
    ["0.5", 1, 1],
    ["100", 3, 0],
    ["0", 1, 0],
  ])("digits of %s: total %d, fraction %d", (text, total, fraction) => {
    expect(xsdDecimalDigits(parseXsdDecimal(text)!)).toEqual({ total, fraction });
  });
});

describe("checkFacets", () => {
  const integer: RawFacets = { base: "integer", enumeration: ["1", "2", "3"] };
  const amount = modelElementAt("31", ["DetallesItems", "Item", "MontoItem"])!.facets!;
  const dateTime = modelElementAt("31", ["FechaHoraFirma"])!.facets!;

  it.each<[string, string, RawFacets, string | undefined]>([
    ["integer enum by value", "01", integer, undefined],
    ["integer enum with spaces (collapsed)", " 2 ", integer, undefined],
    ["integer enum miss", "4", integer, "xsd:enumeration"],
    ["integer with a fraction", "1.5", integer, "xsd:integer"],
    ["string enum is exact", "1", { base: "string", enumeration: ["01"] }, "xsd:enumeration"],
    ["amount ok", "1234.50", amount, undefined],
    ["amount 3 places", "1.005", amount, "xsd:fractionDigits"],
    ["amount negative", "-1", amount, "xsd:pattern"],
    ["date time ok", "31-12-2025 23:59:59", dateTime, undefined],
    ["date time 1-digit hour (the XSD allows it, DGII's format does not)", "31-12-2025 9:59:59", dateTime, "formato-ecf: dd-MM-yyyy HH:mm:ss"],
    ["date time leap day", "29-02-2024 12:00:00", dateTime, undefined],
    ["length in characters, not UTF-16 units", "🇩🇴🇩🇴", { base: "string", maxLength: 4 }, undefined],
    ["length over", "🇩🇴🇩🇴x", { base: "string", maxLength: 4 }, "xsd:maxLength"],
    ["xs:dateTime", "2025-01-25T13:33:57.395-04:00", { base: "dateTime" }, undefined],
    ["xs:dateTime malformed", "25-01-2025", { base: "dateTime" }, "xsd:dateTime"],
    ["lone surrogate", "a\uD800b", { base: "string" }, "xml:Char"],
  ])("%s: %j", (_name, value, facets, rule) => {
    expect(checkFacets(value, facets)?.rule).toBe(rule);
  });
});

describe("the generated model", () => {
  it("has array containers exactly where the only child repeats", () => {
    const m = documentModel("31");
    const arrays: string[] = [];
    const walk = (el: typeof m.root, path: string) => {
      for (const c of el.children ?? []) {
        if (c.shape === "array") arrays.push(`${path}${c.name}[${c.item!.name}×${c.item!.maxOccurs}]`);
        walk(c.shape === "array" ? c.item! : c, `${path}${c.name}/`);
      }
    };
    walk(m.root, "");
    expect(arrays).toEqual([
      "Encabezado/IdDoc/TablaFormasPago[FormaDePago×7]",
      "Encabezado/Emisor/TablaTelefonoEmisor[TelefonoEmisor×3]",
      "Encabezado/Totales/ImpuestosAdicionales[ImpuestoAdicional×20]",
      "Encabezado/OtraMoneda/ImpuestosAdicionalesOtraMoneda[ImpuestoAdicionalOtraMoneda×20]",
      "DetallesItems[Item×1000]",
      "DetallesItems/TablaCodigosItem[CodigosItem×5]",
      "DetallesItems/TablaSubcantidad[SubcantidadItem×5]",
      "DetallesItems/TablaSubDescuento[SubDescuento×12]",
      "DetallesItems/TablaSubRecargo[SubRecargo×12]",
      "DetallesItems/TablaImpuestoAdicional[ImpuestoAdicional×2]",
      "Subtotales[Subtotal×20]",
      "DescuentosORecargos[DescuentoORecargo×20]",
      "Paginacion[Pagina×1000]",
    ]);
    expect(m.signatureSlot).toEqual({ minOccurs: 1, maxOccurs: 1 });
    expect(m.root.children!.at(-1)!.name).toBe("FechaHoraFirma");
  });

  it.each([
    ["31", "ECF"],
    ["RFCE", "RFCE"],
    ["ARECF", "ARECF"],
    ["ACECF", "ACECF"],
    ["ANECF", "ANECF"],
    ["Semilla", "SemillaModel"],
  ] as const)("%s has root %s", (kind, root) => {
    expect(documentModel(kind).rootName).toBe(root);
  });

  it("E33 allows 10,000 lines, E31 1,000", () => {
    expect(modelElementAt("33", ["DetallesItems", "Item"])!.maxOccurs).toBe(10000);
    expect(modelElementAt("31", ["DetallesItems", "Item"])!.maxOccurs).toBe(1000);
  });
});
