// The DGII test-set mapping (src/testset.ts): every row of every ECF and RFCE sheet in the
// reference kit becomes a document the XSD model accepts, and the e-CF rows pass validateEcf.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isRfceSummary, validateEcf } from "../src/validate.ts";
import { checkStructure } from "../src/xml/structure.ts";
import { cellOf, mapTestSetRow, parseCsv, placeColumns, readTestSet, type TestSet } from "../src/testset.ts";
import { DGII_KIT } from "./support/kit.ts";

const KIT = `${DGII_KIT}/testsets`;
const now = new Date("2026-11-21T12:00:00Z");

function load(file: string): TestSet {
  return readTestSet(readFileSync(`${KIT}/${file}`, "utf8"));
}
const files = readdirSync(KIT)
  .filter((f) => /__(ECF|RFCE)\.csv$/.test(f))
  .sort();
const rowsOf = (suffix: string) =>
  files
    .filter((f) => f.endsWith(suffix))
    .flatMap((file) => {
      const set = load(file);
      return set.rows.map((row) => ({ name: `${file.split("__")[0]} ${row.casoPrueba}`, file, set, row }));
    });
const ecfRows = rowsOf("__ECF.csv");
const rfceRows = rowsOf("__RFCE.csv");

/** Rows whose sent totals DGII would judge out of tolerance (none in the kit): listed, not failed. */
const INCONSISTENT_TOTALS: string[] = [];

describe("parseCsv", () => {
  it.each([
    [
      "a,b\n1,2\n",
      [
        ["a", "b"],
        ["1", "2"],
      ],
    ],
    [
      '\uFEFFa,"b,c"\r\n"x ""y""",\n',
      [
        ["a", "b,c"],
        ['x "y"', ""],
      ],
    ],
    ['a\n"multi\nline",z', [["a"], ["multi\nline", "z"]]],
    [
      "a,b\n\n,\n1,2",
      [
        ["a", "b"],
        ["1", "2"],
      ],
    ],
  ])("%j", (text, rows) => {
    expect(parseCsv(text)).toEqual(rows);
  });
});

describe("column placement (E31 model, the kit's header)", () => {
  const set = load(files.find((f) => f.endsWith("__ECF.csv"))!);
  const placed = new Map(placeColumns(set.header, "31").map((p) => [p.column, p.leaf?.steps.join("/") ?? null]));
  it.each([
    ["ENCF", "Encabezado/IdDoc/eNCF"],
    ["FormaPago[3]", "Encabezado/IdDoc/TablaFormasPago/#/FormaPago"],
    ["TelefonoEmisor[2]", "Encabezado/Emisor/TablaTelefonoEmisor/#"],
    ["TipoImpuesto[1]", "Encabezado/Totales/ImpuestosAdicionales/#/TipoImpuesto"],
    ["TipoImpuesto[4][2]", "DetallesItems/#/TablaImpuestoAdicional/#/TipoImpuesto"],
    ["NumeroLinea[2]", "DetallesItems/#/NumeroLinea"],
    ["NumeroLineaDoR[2]", "DescuentosORecargos/#/NumeroLinea"],
    ["MontosubRecargo[1][1]", "DetallesItems/#/TablaSubRecargo/#/MontoSubRecargo"],
    ["IndicadorAgenteRetencionoPercepcion[5]", "DetallesItems/#/Retencion/IndicadorAgenteRetencionoPercepcion"],
    ["SubtotalOtrosImpuesto[2][1]", "Paginacion/#/SubtotalImpuestoAdicional/SubtotalOtrosImpuesto"],
    ["NumeroContenedor", "Encabezado/InformacionesAdicionales/NumeroContenedor"],
    ["IndicadorNotaCredito", null],
    ["SubtotalImpuestoAdicionalPaginaTabla[1]", null],
  ])("%s → %s", (column, path) => {
    expect(placed.get(column)).toBe(path);
  });
});

describe("ECF sheets", () => {
  it("has the kit's 75 rows", () => expect(ecfRows).toHaveLength(75));

  it.each(ecfRows.map((r) => [r.name, r] as const))(
    "%s maps onto the XSD and validates with no error",
    (name, { set, row }) => {
      const mapped = mapTestSetRow(set, row);
      expect(mapped.unplaced).toEqual([]);
      expect(mapped.kind).toBe(cellOf(set, row, "TipoeCF"));
      expect(checkStructure(mapped.document, mapped.kind)).toEqual([]);

      const result = validateEcf(mapped.document, { now, totalsPolicy: "dgii" });
      const errors = result.problems.filter((p) => p.severity === "error").map((p) => `${p.code}@${p.path}`);
      // Every case of DGII's sets must be accepted.
      expect(errors).toEqual([]);
      const outOfTolerance = result.problems.filter((p) => /out_of_tolerance$/.test(p.code));
      expect(outOfTolerance.length > 0).toBe(INCONSISTENT_TOTALS.includes(name));
    },
  );
});

describe("the note on an E41 that leaves TipoIngresos empty (jmtrinidad E340000000015)", () => {
  const entry = ecfRows.find((r) => r.name.endsWith("133009889E340000000015"))!;
  const mapped = mapTestSetRow(entry.set, entry.row).document as Record<string, any>;

  it.each([
    ["no modified receipt known: 01 assumed, with a warning", undefined, "01", ["assumed_value"]],
    [
      "the modified E41 has no TipoIngresos: 01 assumed, with a warning",
      { eNCF: "E410000000001", montoTotal: "1.00" },
      "01",
      ["assumed_value"],
    ],
  ] as const)("%s", (_name, modifiedReceipt, expected, warnings) => {
    expect(mapped.Encabezado.IdDoc.TipoIngresos).toBeUndefined();
    const r = validateEcf(mapped, { now, totalsPolicy: "dgii", ...(modifiedReceipt ? { modifiedReceipt } : {}) });
    expect(r.ok).toBe(true);
    expect((r.document as Record<string, any>).Encabezado.IdDoc.TipoIngresos).toBe(expected);
    expect(r.problems.filter((p) => p.path === "/Encabezado/IdDoc/TipoIngresos").map((p) => p.code)).toEqual(warnings);
  });
});

describe("RFCE sheets", () => {
  it("has the kit's 12 rows", () => expect(rfceRows).toHaveLength(12));

  it.each(rfceRows.map((r) => [r.name, r] as const))(
    "%s maps onto the RFCE XSD and summarises an E32 < 250,000 of its ECF sheet",
    (_name, { file, set, row }) => {
      const mapped = mapTestSetRow(set, row, "RFCE");
      expect(mapped.unplaced).toEqual([]);
      expect(checkStructure(mapped.document, "RFCE")).toEqual([]);

      const ecf = load(file.replace(/__RFCE\.csv$/, "__ECF.csv"));
      const encf = cellOf(set, row, "ENCF");
      const source = ecf.rows.find((r) => cellOf(ecf, r, "ENCF") === encf);
      expect(source, `${encf} in the ECF sheet`).toBeDefined();
      const full = mapTestSetRow(ecf, source!).document;
      expect(isRfceSummary(full)).toBe(true);
      const totales = (d: Record<string, any>) => d.Encabezado.Totales.MontoTotal;
      expect(totales(full)).toBe(totales(mapped.document));
    },
  );
});
