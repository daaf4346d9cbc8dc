// Every problem names where its rule comes from: a DGII document (formato-ecf, informe-tecnico,
// the XSDs, XML itself) or, for the shape of our JSON request, the API's JSON mapping. Checked
// over a corpus that makes every producer speak: garbage, mutations, DGII's sets and samples.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateEcf } from "../src/validate.ts";
import { xmlToEcf } from "../src/xml/parse.ts";
import { canonicalize } from "../src/xml/canonical.ts";
import { checkStructure } from "../src/xml/structure.ts";
import type { TIPOS_ECF } from "../src/tipos.ts";
import type { Problem } from "../src/problems.ts";
import { dgiiTestSetCases, itheskCases } from "./support/dgii-samples.ts";
import { makeEcf } from "./support/ecf-factories.ts";
import { DGII_KIT } from "./support/kit.ts";

const SOURCE = /^(formato-ecf|formato-rfce|informe-tecnico|xsd|xml|json-mapping)[: ]\s*\S/;
const now = new Date("2025-04-01T14:00:00Z");
type J = Record<string, any>;

function mutated(tipo: (typeof TIPOS_ECF)[number], mutate: (d: J) => void): J {
  const d = makeEcf(tipo, { lines: 2 }) as J;
  mutate(d);
  return d;
}

const inputs: [string, unknown][] = [
  ["null", null],
  ["an array", []],
  ["a string", "ECF"],
  ["Encabezado a number", { Encabezado: 5, DetallesItems: "x" }],
  ["unknown TipoeCF", { Encabezado: { IdDoc: { TipoeCF: "99" } }, DetallesItems: [] }],
  [
    "__proto__ key",
    JSON.parse('{"__proto__": {"x": 1}, "Encabezado": {"IdDoc": {"TipoeCF": "31"}}, "DetallesItems": [{}]}'),
  ],
  [
    "deep garbage",
    {
      Encabezado: { IdDoc: { TipoeCF: "34", TipoPago: [1] }, Totales: "x", Emisor: { FechaEmision: "2025-01-01" } },
      DetallesItems: [null, 7, { CantidadItem: Infinity, PrecioUnitarioItem: "1e3" }],
      InformacionReferencia: [],
    },
  ],
  [
    "placeholder sample",
    xmlToEcf(readFileSync(`${DGII_KIT}/samples/dgii-ecf/ecf32_signed_allfields_placeholder.xml`, "utf8")),
  ],
  [
    "E31 totals off",
    mutated("31", (d) => ((d.Encabezado.Totales.MontoTotal = "1.00"), (d.DetallesItems[0].MontoItem = "9999.00"))),
  ],
  [
    "E31 bad dates and ids",
    mutated(
      "31",
      (d) => (
        (d.Encabezado.Emisor.FechaEmision = "31-02-2025"),
        (d.Encabezado.Comprador.RNCComprador = "123456789"),
        (d.Encabezado.IdDoc.eNCF = "E320000000001")
      ),
    ),
  ],
  [
    "E43 with a prohibited Comprador and a taxed line",
    mutated(
      "43",
      (d) => (
        (d.Encabezado.Comprador = { RNCComprador: "131880738" }), (d.DetallesItems[0].IndicadorFacturacion = "1")
      ),
    ),
  ],
  ["E34 text correction with amounts", mutated("34", (d) => (d.InformacionReferencia.CodigoModificacion = "2"))],
  [
    "E41 numbering and pages",
    mutated(
      "41",
      (d) => (
        (d.DetallesItems[1].NumeroLinea = "7"),
        (d.Paginacion = [{ PaginaNo: 2 }]),
        (d.Encabezado.IdDoc.TotalPaginas = "3")
      ),
    ),
  ],
  [
    "E46 unknown element and bad decimals",
    mutated("46", (d) => ((d.Encabezado.Emisor.Apodo = "x"), (d.DetallesItems[0].PrecioUnitarioItem = "1.23456"))),
  ],
  ...[...dgiiTestSetCases(), ...itheskCases()].map((c) => [c.name, c.doc] as [string, unknown]),
];

describe("every problem names its rule's source", () => {
  const all: { input: string; problem: Problem }[] = [];
  for (const [name, input] of inputs) {
    for (const problem of validateEcf(input, { now }).problems) all.push({ input: name, problem });
    if (input && typeof input === "object" && !Array.isArray(input)) {
      const canonical = canonicalize(input, "31");
      for (const problem of [...canonical.problems, ...checkStructure(canonical.document, "31")])
        all.push({ input: `${name} (structure)`, problem });
    }
  }

  it("the corpus makes many kinds of problems", () => {
    expect(new Set(all.map((p) => p.problem.code)).size).toBeGreaterThanOrEqual(20);
  });

  it("no problem lacks a rule, and each rule names a DGII document or the JSON mapping", () => {
    const bad = all
      .filter(({ problem }) => typeof problem.rule !== "string" || !SOURCE.test(problem.rule))
      .map(({ input, problem }) => ({ input, code: problem.code, path: problem.path, rule: problem.rule }));
    expect(bad).toEqual([]);
  });

  it.each([
    ["invalid_type", /^json-mapping: /],
    ["unknown_field", /^(xsd:sequence|json-mapping: )/],
    ["required", /^formato-ecf: /],
    ["total_out_of_tolerance", /^informe-tecnico §12/],
    ["invalid_format", /^(xsd:|xml:|formato-ecf: dd-MM|json-mapping: )/],
  ])("%s problems cite %s", (code, source) => {
    const rules = all.filter((p) => p.problem.code === code).map((p) => p.problem.rule);
    expect(rules.length).toBeGreaterThan(0);
    for (const r of rules) expect(r).toMatch(source);
  });
});
