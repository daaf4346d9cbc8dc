import { describe, expect, it } from "vitest";
import {
  checkFacets,
  compareXsdDecimal,
  DOCUMENT_KINDS,
  documentModel,
  modelElementAt,
  parseXsdDecimal,
  xsdDecimalDigits,
  xsdDecimalKey,
  xsdPatternToRegExp,
  type ModelElement,
  type RawFacets,
} from "../src/index.ts";

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

  it.each([["1e5"], ["1,000"], [""], ["."], ["+-1"], ["0x10"], [" 1"]])(
    "%j is not an xs:decimal lexical form",
    (text) => {
      expect(parseXsdDecimal(text)).toBeUndefined();
    },
  );

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
    [
      "date time 1-digit hour (the XSD allows it, DGII's format does not)",
      "31-12-2025 9:59:59",
      dateTime,
      "formato-ecf: dd-MM-yyyy HH:mm:ss",
    ],
    ["date time leap day", "29-02-2024 12:00:00", dateTime, undefined],
    ["length in characters, not UTF-16 units", "🇩🇴🇩🇴", { base: "string", maxLength: 4 }, undefined],
    ["length over", "🇩🇴🇩🇴x", { base: "string", maxLength: 4 }, "xsd:maxLength"],
    ["xs:dateTime", "2025-01-25T13:33:57.395-04:00", { base: "dateTime" }, undefined],
    ["xs:dateTime malformed", "25-01-2025", { base: "dateTime" }, "xsd:dateTime"],
    ["lone surrogate", "a\uD800b", { base: "string" }, "xml:Char"],
  ])("%s: %j", (_name, value, facets, rule) => {
    expect(checkFacets(value, facets)?.rule).toBe(rule);
  });

  const line = modelElementAt("31", ["DetallesItems", "Item", "NumeroLinea"])!.facets!;
  const quantity = modelElementAt("31", ["DetallesItems", "Item", "CantidadItem"])!.facets!;
  const price = modelElementAt("31", ["DetallesItems", "Item", "PrecioUnitarioItem"])!.facets!;
  it.each<[string, string, RawFacets, string | undefined]>([
    ["line number at the lower bound", "1", line, undefined],
    ["line number at the upper bound", "1000", line, undefined],
    ["line number above it", "1001", line, "xsd:maxInclusive"],
    ["line number zero", "0", line, "xsd:minInclusive"],
    ["line number with leading zeros (by value)", "0007", line, undefined],
    ["line number of 5 digits", "10000", line, "xsd:totalDigits"],
    ["line number with a point", "7.", line, "xsd:pattern"],
    ["quantity zero", "0.00", quantity, "xsd:minExclusive"],
    ["quantity just above zero", "0.01", quantity, undefined],
    ["quantity with a trailing zero beyond 2 places (value ok, pattern not)", "1.500", quantity, "xsd:pattern"],
    ["quantity of 17 integer digits (total ok, pattern not)", "12345678901234567", quantity, "xsd:pattern"],
    ["price with 4 places", "0.0001", price, undefined],
    ["price with 5 places", "1.23456", price, "xsd:fractionDigits"],
    ["price starting with a point", ".5", price, "xsd:pattern"],
    ["numeric enumeration by value", "1.00", { base: "decimal", enumeration: ["1.0"] }, undefined],
    ["numeric enumeration miss", "2", { base: "decimal", enumeration: ["1.0"] }, "xsd:enumeration"],
  ])("plain numbers: %s: %j", (_name, value, facets, rule) => {
    expect(checkFacets(value, facets)?.rule).toBe(rule);
  });

  // Every numeric type of every schema against the XSD rules written out here from the exact
  // decimal primitives: the check's allocation-free reading of plain numbers must agree.
  const numericTypes = new Set<RawFacets>();
  const collect = (el: ModelElement) => {
    if (el.facets && (el.facets.base === "decimal" || el.facets.base === "integer")) numericTypes.add(el.facets);
    for (const child of el.children ?? []) collect(child);
    if (el.item) collect(el.item);
  };
  for (const kind of DOCUMENT_KINDS) collect(documentModel(kind).root);
  const values = [
    "0",
    "00",
    "0.0",
    "0.00",
    "0.01",
    "0.001",
    "1",
    "01",
    "1.0",
    "1.00",
    "1.5",
    "1.50",
    "1.500",
    "1.005",
    "7.",
    ".5",
    "9",
    "10",
    "31",
    "047",
    "62",
    "63",
    "99",
    "100",
    "999",
    "1000",
    "1001",
    "9999",
    "10000",
    "01000",
    "12.3456",
    "12.34567",
    "9999999999999999.99",
    "10000000000000000",
    "99999999999999999999",
    "-1",
    "+1",
    " 1",
    "1e3",
    "1,0",
  ];
  const reference = (value: string, f: RawFacets): boolean => {
    const p = parseXsdDecimal(value.trim());
    if (!p || (f.base === "integer" && p.frac !== "")) return false;
    if (f.enumeration && !f.enumeration.some((e) => xsdDecimalKey(parseXsdDecimal(e)!) === xsdDecimalKey(p)))
      return false;
    const digits = xsdDecimalDigits(p);
    if (f.fractionDigits !== undefined && digits.fraction > f.fractionDigits) return false;
    if (f.totalDigits !== undefined && digits.total > f.totalDigits) return false;
    const cmp = (bound: string | undefined) =>
      bound === undefined ? undefined : compareXsdDecimal(p, parseXsdDecimal(bound)!);
    if (
      (cmp(f.minInclusive) ?? 0) < 0 ||
      (cmp(f.minExclusive) ?? 1) <= 0 ||
      (cmp(f.maxInclusive) ?? 0) > 0 ||
      (cmp(f.maxExclusive) ?? -1) >= 0
    )
      return false;
    return !f.patterns || f.patterns.some((pattern) => xsdPatternToRegExp(pattern)!.test(value.trim()));
  };
  it(`agrees with the XSD rules for ${values.length} spellings of every numeric type (${numericTypes.size} types)`, () => {
    expect(numericTypes.size).toBeGreaterThan(20);
    const disagreements: string[] = [];
    for (const f of numericTypes) {
      for (const value of values) {
        if ((checkFacets(value, f) === undefined) !== reference(value, f))
          disagreements.push(`${JSON.stringify(f)} ${JSON.stringify(value)}`);
      }
    }
    expect(disagreements).toEqual([]);
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
