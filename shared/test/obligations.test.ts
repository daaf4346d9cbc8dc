import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIELD_PATHS, arrayChild, fieldsWith, obligationOf } from "../src/obligations.ts";
import { TIPOS_ECF, type TipoeCF } from "../src/tipos.ts";
import { CONDITIONS, UNCHECKED_CONDITIONALS } from "../src/ecf-rules.ts";
import { DGII_KIT } from "./support/kit.ts";

// Rows checked by hand against formato-ecf.txt (v1.0, Oct 2025), in type order 31..47.
const ROWS: [string, number[]][] = [
  ["Encabezado/IdDoc/TipoeCF", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
  ["Encabezado/IdDoc/FechaVencimientoSecuencia", [1, 0, 1, 0, 1, 1, 1, 1, 1, 1]],
  ["Encabezado/IdDoc/IndicadorNotaCredito", [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]],
  ["Encabezado/IdDoc/IndicadorMontoGravado", [2, 2, 2, 2, 2, 0, 0, 2, 0, 0]],
  ["Encabezado/IdDoc/TipoIngresos", [1, 1, 1, 1, 0, 0, 1, 1, 1, 0]],
  ["Encabezado/IdDoc/TipoPago", [1, 1, 1, 1, 1, 3, 1, 1, 1, 3]],
  ["Encabezado/IdDoc/FechaLimitePago", [2, 2, 2, 2, 2, 0, 2, 2, 2, 3]],
  ["Encabezado/Comprador", [1, 1, 2, 2, 1, 0, 1, 1, 1, 3]],
  ["Encabezado/Comprador/RNCComprador", [1, 2, 2, 2, 1, 0, 2, 1, 2, 0]],
  ["Encabezado/Comprador/IdentificadorExtranjero", [0, 2, 2, 2, 0, 0, 2, 0, 2, 3]],
  ["Encabezado/Comprador/RazonSocialComprador", [1, 2, 2, 2, 1, 0, 1, 1, 1, 3]],
  ["Encabezado/Totales/MontoGravadoTotal", [2, 2, 2, 2, 2, 0, 0, 2, 2, 0]],
  ["Encabezado/Totales/MontoExento", [2, 2, 2, 2, 2, 2, 2, 2, 0, 2]],
  ["Encabezado/Totales/MontoTotal", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
  ["Encabezado/Totales/TotalITBISRetenido", [2, 0, 2, 2, 2, 0, 0, 0, 0, 0]],
  ["Encabezado/Totales/TotalISRRetencion", [2, 0, 2, 2, 2, 0, 0, 0, 0, 2]],
  ["DetallesItems/Item/Retencion/MontoISRRetenido", [2, 0, 2, 2, 2, 0, 0, 0, 0, 1]],
  ["DetallesItems/Item/MontoItem", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
  ["InformacionReferencia/NCFModificado", [2, 2, 1, 1, 2, 2, 2, 2, 2, 2]],
  ["InformacionReferencia/CodigoModificacion", [2, 2, 1, 1, 2, 2, 2, 2, 2, 2]],
  ["InformacionReferencia/RazonModificacion", [0, 0, 3, 3, 0, 0, 0, 0, 0, 0]],
];

describe("obligation matrix (generated from formato-ecf)", () => {
  it.each(ROWS)("%s", (path, codes) => {
    expect(TIPOS_ECF.map((t) => obligationOf(path, t))).toEqual(codes);
  });

  it("covers the whole format", () => {
    expect(FIELD_PATHS.length).toBeGreaterThan(250);
    expect(obligationOf("Encabezado/Nope", "31")).toBeUndefined();
    expect(fieldsWith("43", 1)).toContain("Encabezado/Totales/MontoTotal");
    expect(arrayChild("DetallesItems")).toBe("Item");
    expect(arrayChild("Encabezado/Emisor/TablaTelefonoEmisor")).toBe("TelefonoEmisor");
  });

  // Independent oracle: each type's official XSD. A field the XSD leaves out must be 0, and a
  // field the XSD always requires (minOccurs 1 all the way up) must be 1.
  const xsdDir = `${DGII_KIT}/xsd`;
  const files = readdirSync(xsdDir);
  it.each(TIPOS_ECF.map((t) => [t] as [TipoeCF]))("agrees with the e-CF %s XSD", (tipo) => {
    const text = readFileSync(`${xsdDir}/${files.find((f) => f.startsWith(`e-CF ${tipo} `))}`, "utf8");
    const present = new Map<string, boolean>();
    const stack: { name: string; required: boolean }[] = [];
    for (const m of text.matchAll(/<(\/?)xs:element\b([^>]*?)(\/?)>/g)) {
      if (m[1]) {
        stack.pop();
        continue;
      }
      const name = /name="([^"]+)"/.exec(m[2]!)![1]!;
      const required = !/minOccurs="0"/.test(m[2]!) && stack.every((s) => s.required);
      const path = [...stack.map((s) => s.name), name].slice(1).join("/");
      if (path) present.set(path, required);
      if (!m[3]) stack.push({ name, required });
    }
    for (const path of FIELD_PATHS) {
      const code = obligationOf(path, tipo);
      if (!present.has(path)) expect([path, code]).toEqual([path, 0]);
      else expect([path, code]).not.toEqual([path, 0]);
      if (present.get(path)) expect([path, code]).toEqual([path, 1]);
    }
  });
});

describe("condition table", () => {
  // A typo in a key would silently disable a rule: every key must be a conditional field.
  it.each([...Object.keys(CONDITIONS), ...Object.keys(UNCHECKED_CONDITIONALS)].map((k) => [k]))(
    "%s is a field with code 2 for some type",
    (path) => {
      expect(FIELD_PATHS).toContain(path);
      expect(TIPOS_ECF.some((t) => obligationOf(path, t) === 2)).toBe(true);
    },
  );

  it("every code-2 field has exactly one of: a condition, or a stated reason it has none", () => {
    const conditional = FIELD_PATHS.filter((p) => TIPOS_ECF.some((t) => obligationOf(p, t) === 2));
    const covered = conditional.filter((p) => p in CONDITIONS !== p in UNCHECKED_CONDITIONALS);
    expect(covered).toEqual(conditional);
  });

  it.each([
    ["Encabezado/IdDoc/TotalPaginas", "condition"],
    ["Paginacion/Pagina/NoLineaDesde", "condition"],
    ["DetallesItems/Item/UnidadReferencia", "condition"],
    ["DetallesItems/Item/TablaSubcantidad/SubcantidadItem/CodigoSubcantidad", "condition"],
    ["Encabezado/Totales/MontoGravadoTotal", "computed"],
    ["Paginacion/Pagina/SubtotalItbisPagina", "computed"],
    ["InformacionReferencia/RNCOtroContribuyente", "outside"],
  ])("%s: %s", (path, kind) => {
    expect(path in CONDITIONS ? "condition" : UNCHECKED_CONDITIONALS[path]).toBe(kind);
  });
});
