import { describe, expect, it } from "vitest";
import { formatDgiiDate as fechaSantoDomingo } from "../src/dgii-time.ts";
import { validateEcf, isRfceSummary, type ValidationContext } from "../src/validate.ts";
import { checkStructure } from "../src/xml/structure.ts";
import { ecfToXml } from "../src/xml/serialize.ts";
import { validateXsdMany } from "../src/xml/xsd-validate.ts";
import { TIPOS_ECF, type TipoeCF } from "../src/tipos.ts";
import type { Problem } from "../src/problems.ts";
import { ecfCases, makeEcf } from "./support/ecf-factories.ts";
import { dgiiTestSetCases, itheskCases } from "./support/dgii-samples.ts";

const now = new Date("2025-04-01T14:00:00Z");
const context: ValidationContext = {
  now,
  eNCF: "E310000000007",
  fechaVencimientoSecuencia: "31-12-2026",
  emisor: {
    RNCEmisor: "130862346",
    RazonSocialEmisor: "IT SOLUCLICK SRL",
    DireccionEmisor: "Av. 27 de Febrero No. 1",
    TablaTelefonoEmisor: ["809-555-0101"],
  },
};
const ctx = (tipo: TipoeCF, more: Partial<ValidationContext> = {}): ValidationContext => ({
  ...context,
  eNCF: `E${tipo}0000000007`,
  ...more,
});

type J = Record<string, any>;
/** A minimal request: only what the client must say; the rest is derived. */
function request(tipo: TipoeCF, lines: J[], more: { idDoc?: J; comprador?: J | null; totales?: J; root?: J } = {}): J {
  const comprador =
    more.comprador === null
      ? undefined
      : (more.comprador ?? { RNCComprador: "131880738", RazonSocialComprador: "DGII" });
  const idDoc: J = { TipoeCF: tipo, TipoPago: 1, ...more.idDoc };
  if (["31", "32", "33", "34", "44", "45", "46"].includes(tipo) && !("TipoIngresos" in idDoc))
    idDoc.TipoIngresos = "01";
  return {
    Encabezado: {
      IdDoc: idDoc,
      ...(comprador ? { Comprador: comprador } : {}),
      ...(more.totales ? { Totales: more.totales } : {}),
    },
    DetallesItems: lines,
    ...more.root,
  };
}
const line = (ind: number, qty: number | string, price: number | string, extra: J = {}): J => ({
  IndicadorFacturacion: ind,
  NombreItem: "Producto",
  IndicadorBienoServicio: 1,
  CantidadItem: qty,
  PrecioUnitarioItem: price,
  ...extra,
});
const codes = (ps: Problem[]) => ps.map((p) => `${p.severity}:${p.code}@${p.path}`);
const errors = (ps: Problem[]) => ps.filter((p) => p.severity === "error");

describe("validateEcf completes a minimal request", () => {
  const r = validateEcf(
    request("31", [line(1, 2, "100.00"), line(4, 1, 50)], { idDoc: { IndicadorMontoGravado: 0 } }),
    context,
  );

  it("is ok", () => {
    expect(codes(r.problems)).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it.each([
    ["/Encabezado/Version", "1.0"],
    ["/Encabezado/IdDoc/eNCF", "E310000000007"],
    ["/Encabezado/IdDoc/FechaVencimientoSecuencia", "31-12-2026"],
    ["/Encabezado/IdDoc/TipoPago", "1"],
    ["/Encabezado/Emisor/RNCEmisor", "130862346"],
    ["/Encabezado/Emisor/FechaEmision", "01-04-2025"],
    ["/DetallesItems/0/NumeroLinea", "1"],
    ["/DetallesItems/1/NumeroLinea", "2"],
    ["/DetallesItems/0/MontoItem", "200.00"],
    ["/DetallesItems/0/CantidadItem", "2.00"],
    ["/Encabezado/Totales/MontoGravadoTotal", "200.00"],
    ["/Encabezado/Totales/TotalITBIS1", "36.00"],
    ["/Encabezado/Totales/MontoExento", "50.00"],
    ["/Encabezado/Totales/MontoTotal", "286.00"],
    ["/FechaHoraFirma", "01-04-2025 10:00:00"],
  ])("%s = %s", (pointer, value) => {
    const got = pointer
      .split("/")
      .slice(1)
      .reduce<unknown>((node, key) => (node as J)?.[key], r.document);
    expect(got).toBe(value);
  });

  it.each([
    ["2025-04-02T03:59:59Z", "01-04-2025"],
    ["2025-04-02T04:00:00Z", "02-04-2025"],
    ["2025-01-01T02:00:00Z", "31-12-2024"],
  ])("FechaEmision in Santo Domingo: %s → %s", (iso, fecha) => {
    expect(fechaSantoDomingo(new Date(iso))).toBe(fecha);
  });

  it("a request cannot issue for another RNC than the profile's", () => {
    const doc = request("31", [line(4, 1, 1)]);
    doc.Encabezado.Emisor = { RNCEmisor: "131880681" };
    expect(codes(validateEcf(doc, context).problems)).toEqual(["error:emisor_mismatch@/Encabezado/Emisor/RNCEmisor"]);
  });

  it("the request wins over the context", () => {
    const doc = request("31", [line(1, 1, 1)], { idDoc: { eNCF: "E310000000099", IndicadorMontoGravado: 0 } });
    const out = validateEcf(doc, context);
    expect((out.document as J).Encabezado.IdDoc.eNCF).toBe("E310000000099");
  });
});

describe("validateEcf never throws and reports missing parts", () => {
  const garbage: unknown[] = [
    null,
    undefined,
    0,
    "E31",
    [],
    [{}],
    true,
    {},
    { Encabezado: null },
    { Encabezado: [], DetallesItems: {} },
    { Encabezado: { IdDoc: { TipoeCF: "99" } }, DetallesItems: [1, null, "x"] },
    { Encabezado: { IdDoc: { TipoeCF: 31 } }, DetallesItems: [{ CantidadItem: { a: 1 }, PrecioUnitarioItem: [] }] },
    { Encabezado: { IdDoc: { TipoeCF: "34" }, Totales: "x" }, DetallesItems: [null], InformacionReferencia: [] },
    {
      Encabezado: { IdDoc: { TipoeCF: "31" }, Emisor: 5, Comprador: [] },
      DetallesItems: [{ TablaSubDescuento: [null, 1, { TipoSubDescuento: {} }] }],
    },
  ];
  it.each(garbage.map((g) => [JSON.stringify(g) ?? "undefined", g]))("%s", (_name, input) => {
    const r = validateEcf(input, context);
    expect(r.ok).toBe(false);
    expect(r.problems.length).toBeGreaterThan(0);
    for (const p of r.problems) {
      expect(p.path === "" || p.path.startsWith("/")).toBe(true);
      expect(p.message && p.messageEs && p.code).toBeTruthy();
    }
    expect(r.problems.some((p) => p.code === "internal_error")).toBe(false);
  });

  it("keeps a __proto__ key as data", () => {
    const input = JSON.parse('{"Encabezado":{"IdDoc":{"TipoeCF":"32"},"__proto__":{"polluted":1}},"DetallesItems":[]}');
    const r = validateEcf(input, ctx("32"));
    expect(({} as J).polluted).toBeUndefined();
    expect((r.document as J).Encabezado.polluted).toBeUndefined();
    expect(codes(r.problems)).toContain("error:unknown_field@/Encabezado/__proto__");
  });

  it("survives random mutations of a valid document", () => {
    let seed = 3;
    const rand = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const junk = [null, 0, -1, "", "x", [], {}, [null], { a: 1 }, "9".repeat(40), 1e308, true];
    for (let i = 0; i < 300; i++) {
      const doc = JSON.parse(JSON.stringify(makeEcf(TIPOS_ECF[rand(10)]!, { lines: 2 }))) as J;
      // replace one random node anywhere with junk
      let node: J = doc;
      for (let depth = 0; depth < 4; depth++) {
        const keys = Object.keys(node);
        if (keys.length === 0) break;
        const k = keys[rand(keys.length)]!;
        if (depth === 3 || typeof node[k] !== "object" || node[k] === null || rand(3) === 0) {
          node[k] = junk[rand(junk.length)];
          break;
        }
        node = node[k];
      }
      const r = validateEcf(doc, context);
      expect(r.problems.some((p) => p.code === "internal_error")).toBe(false);
    }
  });

  it.each([
    ["no Encabezado", { DetallesItems: [line(1, 1, 1)] }, "required@/Encabezado"],
    [
      "no DetallesItems",
      request("31", []).Encabezado && { Encabezado: request("31", []).Encabezado },
      "required@/DetallesItems",
    ],
    ["empty DetallesItems", request("31", []), "required@/DetallesItems"],
    [
      "DetallesItems not an array",
      { ...request("31", []), DetallesItems: { Item: [] } },
      "invalid_type@/DetallesItems",
    ],
    ["no TipoeCF", { Encabezado: { IdDoc: {} }, DetallesItems: [line(1, 1, 1)] }, "required@/Encabezado/IdDoc/TipoeCF"],
    [
      "unknown TipoeCF",
      { Encabezado: { IdDoc: { TipoeCF: "30" } }, DetallesItems: [line(1, 1, 1)] },
      "invalid_value@/Encabezado/IdDoc/TipoeCF",
    ],
  ] as const)("%s", (_name, input, expected) => {
    const r = validateEcf(input, { now });
    expect(codes(r.problems).map((c) => c.replace(/^error:/, ""))).toContain(expected);
    expect(r.ok).toBe(false);
  });

  it.each(["IdDoc", "Emisor", "Totales", "OtraMoneda"])("a non-object %s is reported, not silently replaced", (key) => {
    const doc = request("31", [line(4, 1, 1)]);
    doc.Encabezado[key] = "x";
    if (key === "IdDoc") doc.Encabezado.IdDoc = ["x"];
    const r = validateEcf(doc, context);
    expect(codes(r.problems)).toContain(`error:invalid_type@/Encabezado/${key}`);
  });

  it("TipoeCF can come from the assigned e-NCF", () => {
    const doc = request("32", [line(1, 1, 10)], { idDoc: { IndicadorMontoGravado: 0 } });
    delete doc.Encabezado.IdDoc.TipoeCF;
    const r = validateEcf(doc, ctx("32"));
    expect(r.ok).toBe(true);
    expect((r.document as J).Encabezado.IdDoc.TipoeCF).toBe("32");
  });
});

describe("a bad TipoeCF hides nothing the other checks can still see", () => {
  it("TipoeCF 99 is reported beside a bad RNCEmisor and a FechaEmision that is no date", () => {
    const doc = makeEcf("31", { lines: 1 }) as {
      Encabezado: { IdDoc: Record<string, unknown>; Emisor: Record<string, unknown> };
    };
    doc.Encabezado.IdDoc.TipoeCF = "99";
    doc.Encabezado.Emisor.RNCEmisor = "131880680";
    doc.Encabezado.Emisor.FechaEmision = "31-02-2026";
    const r = validateEcf(doc, context);
    expect(r.ok).toBe(false);
    const paths = r.problems.filter((p) => p.severity === "error").map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(["/Encabezado/IdDoc/TipoeCF", "/Encabezado/Emisor/FechaEmision"]));
    expect(r.problems.map((p) => p.path)).toContain("/Encabezado/Emisor/RNCEmisor");
  });
});

describe("obligation matrix", () => {
  it.each([
    [
      "E32 carries no FechaVencimientoSecuencia",
      "32",
      request("32", [line(4, 1, 1)], { idDoc: { FechaVencimientoSecuencia: "31-12-2026" } }),
      "error:prohibited@/Encabezado/IdDoc/FechaVencimientoSecuencia",
    ],
    ["E43 has no Comprador", "43", request("43", [line(4, 1, 1)]), "error:prohibited@/Encabezado/Comprador"],
    [
      "E31 requires RNCComprador",
      "31",
      request("31", [line(4, 1, 1)], { comprador: { RazonSocialComprador: "X" } }),
      "error:required@/Encabezado/Comprador/RNCComprador",
    ],
    [
      "E31 requires TipoIngresos",
      "31",
      request("31", [line(4, 1, 1)], { idDoc: { TipoIngresos: undefined } }),
      "error:required@/Encabezado/IdDoc/TipoIngresos",
    ],
    [
      "every line requires NombreItem",
      "32",
      request("32", [line(4, 1, 1, { NombreItem: "" })]),
      "error:required@/DetallesItems/0/NombreItem",
    ],
    [
      "credit sale requires FechaLimitePago",
      "31",
      request("31", [line(4, 1, 1)], { idDoc: { TipoPago: 2 } }),
      "error:required@/Encabezado/IdDoc/FechaLimitePago",
    ],
    [
      "ITBIS lines require IndicadorMontoGravado",
      "31",
      request("31", [line(1, 1, 1)]),
      "error:required@/Encabezado/IdDoc/IndicadorMontoGravado",
    ],
    [
      "a % sub-discount requires its percentage",
      "31",
      request("31", [
        line(4, 1, 100, {
          DescuentoMonto: "10.00",
          TablaSubDescuento: [{ TipoSubDescuento: "%", MontoSubDescuento: "10.00" }],
        }),
      ]),
      "error:required@/DetallesItems/0/TablaSubDescuento/0/SubDescuentoPorcentaje",
    ],
    [
      "a discount requires its table",
      "31",
      request("31", [line(4, 1, 100, { DescuentoMonto: "10.00" })]),
      "error:required@/DetallesItems/0/TablaSubDescuento",
    ],
    [
      "E41 requires Retencion per line",
      "41",
      request("41", [line(4, 1, 100)]),
      "error:required@/DetallesItems/0/Retencion",
    ],
    [
      "E41 service withholding requires MontoISRRetenido",
      "41",
      request("41", [
        line(4, 1, 100, {
          IndicadorBienoServicio: 2,
          Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoITBISRetenido: "0.00" },
        }),
      ]),
      "error:required@/DetallesItems/0/Retencion/MontoISRRetenido",
    ],
    [
      "E47 requires MontoISRRetenido",
      "47",
      request("47", [line(4, 1, 100, { Retencion: { IndicadorAgenteRetencionoPercepcion: 1 } })], { comprador: null }),
      "error:required@/DetallesItems/0/Retencion/MontoISRRetenido",
    ],
    [
      "E47 has no RNCComprador",
      "47",
      request("47", [line(4, 1, 100)], { comprador: { RNCComprador: "131880738" } }),
      "error:prohibited@/Encabezado/Comprador/RNCComprador",
    ],
    [
      "E33 requires InformacionReferencia",
      "33",
      request("33", [line(4, 1, 1)]),
      "error:required@/InformacionReferencia",
    ],
    [
      "global discount row requires its amount",
      "31",
      request("31", [line(4, 1, 100)], {
        root: {
          DescuentosORecargos: [
            { NumeroLinea: 1, TipoAjuste: "D", TipoValor: "$", IndicadorFacturacionDescuentooRecargo: 4 },
          ],
        },
      }),
      "error:required@/DescuentosORecargos/0/MontoDescuentooRecargo",
    ],
  ] as const)("%s", (_name, tipo, doc, expected) => {
    const r = validateEcf(doc, ctx(tipo as TipoeCF));
    expect(codes(r.problems)).toContain(expected);
    expect(r.ok).toBe(false);
    const p = r.problems.find((x) => `${x.severity}:${x.code}@${x.path}` === expected)!;
    expect(p.rule).toMatch(/formato-ecf/);
    expect(p.messageEs).not.toBe(p.message);
  });
});

describe("totals sent by the client", () => {
  const base = (totales: J, lines = [line(1, "5.50", "100.33"), line(1, "10.25", "555.44"), line(1, "2", "333.25")]) =>
    request("31", lines, { idDoc: { IndicadorMontoGravado: 0 }, totales });

  it.each([
    ["exact", { MontoTotal: "8155.66" }, []],
    ["within ±3 (3 lines)", { MontoTotal: "8158.66" }, []],
    ["beyond ±3", { MontoTotal: "8158.67" }, ["error:total_out_of_tolerance@/Encabezado/Totales/MontoTotal"]],
    ["a per-rate total", { TotalITBIS1: "1000.00" }, ["error:total_out_of_tolerance@/Encabezado/Totales/TotalITBIS1"]],
    [
      "a total with no basis",
      { MontoExento: "10.00" },
      ["error:total_out_of_tolerance@/Encabezado/Totales/MontoExento"],
    ],
    ["a wrong ITBIS rate", { ITBIS1: "16" }, ["error:invalid_value@/Encabezado/Totales/ITBIS1"]],
    [
      "global discount totals are dropped",
      { MontoDescuentosGlobales: "0.00", MontoRecargosGlobales: "0.00" },
      [
        "warning:dropped_field@/Encabezado/Totales/MontoDescuentosGlobales",
        "warning:dropped_field@/Encabezado/Totales/MontoRecargosGlobales",
      ],
    ],
  ] as const)("%s", (_name, totales, expected) => {
    const r = validateEcf(base(totales), context);
    expect(codes(r.problems)).toEqual(expected);
  });

  it("shows the computed value, keeps the client's, and says what DGII would do", () => {
    const r = validateEcf(base({ MontoTotal: "9000.00" }), context);
    const p = r.problems[0]!;
    expect(p.details).toMatchObject({
      sent: "9000.00",
      computed: "8155.66",
      difference: "844.34",
      tolerance: "3.00",
      withinTolerance: false,
      dgiiOutcome: "aceptado_condicional",
    });
    expect((r.document as J).Encabezado.Totales.MontoTotal).toBe("9000.00");
  });

  it("policy dgii reports it as a warning (conditional acceptance)", () => {
    const r = validateEcf(base({ MontoTotal: "8000.00" }), { ...context, totalsPolicy: "dgii" });
    expect(codes(r.problems)).toEqual(["warning:total_out_of_tolerance@/Encabezado/Totales/MontoTotal"]);
    expect(r.ok).toBe(true);
  });

  it.each([
    [{ PrecioOtraMoneda: "10.5000" }, "21.00", []],
    [{ PrecioOtraMoneda: "10.5000", DescuentoOtraMoneda: "1.00", MontoItemOtraMoneda: "20.00" }, "20.00", []],
    [
      { PrecioOtraMoneda: "10.5000", MontoItemOtraMoneda: "22.01" },
      "22.01",
      ["error:line_out_of_tolerance@/DetallesItems/0/OtraMonedaDetalle/MontoItemOtraMoneda"],
    ],
  ] as const)("OtraMonedaDetalle %j → MontoItemOtraMoneda %s", (omd, expected, problems) => {
    const doc = request("31", [line(1, 2, "600.00", { OtraMonedaDetalle: omd })], {
      idDoc: { IndicadorMontoGravado: 0 },
    });
    const r = validateEcf(doc, context);
    expect(codes(r.problems)).toEqual(problems);
    expect((r.document as J).DetallesItems[0].OtraMonedaDetalle.MontoItemOtraMoneda).toBe(expected);
  });

  it.each([
    ["552.80", []], // informe-tecnico §12 example: 0.98 off
    ["550.82", []],
    ["550.81", ["error:line_out_of_tolerance@/DetallesItems/0/MontoItem"]],
  ] as const)("a line written as %s for 5.50 × 100.33", (monto, expected) => {
    const r = validateEcf(base({}, [line(1, "5.50", "100.33", { MontoItem: monto })]), context);
    expect(codes(r.problems)).toEqual(expected);
  });
});

describe("per-type rules", () => {
  const high = [line(4, 1, "250000.00")];
  it.each([
    [
      "E32 ≥ 250,000 with an anonymous buyer",
      request("32", high, { comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" } }),
      ["error:required@/Encabezado/Comprador/RNCComprador"],
    ],
    [
      "E32 ≥ 250,000 with only an address",
      request("32", high, { comprador: { DireccionComprador: "Calle 1" } }),
      [
        "error:required@/Encabezado/Comprador/RazonSocialComprador",
        "error:required@/Encabezado/Comprador/RNCComprador",
      ],
    ],
    [
      "E32 ≥ 250,000 with a foreign buyer",
      request("32", high, { comprador: { IdentificadorExtranjero: "P1234567", RazonSocialComprador: "John" } }),
      [],
    ],
    [
      "E32 below 250,000 for a final consumer",
      request("32", [line(4, 1, "249999.99")], { comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" } }),
      [],
    ],
    [
      "E32 always has a Comprador (XSD minOccurs 1)",
      request("32", [line(4, 1, "1")], { comprador: null }),
      ["error:required@/Encabezado/Comprador"],
    ],
    [
      "E43 line taxed",
      request("43", [line(1, 1, 1)], { comprador: null }),
      ["error:invalid_indicador_facturacion@/DetallesItems/0/IndicadorFacturacion"],
    ],
    [
      "E46 line exempt",
      request("46", [line(4, 1, 1)]),
      ["error:invalid_indicador_facturacion@/DetallesItems/0/IndicadorFacturacion"],
    ],
    [
      "E41 withholds ITBIS on an exempt line",
      request("41", [
        line(4, 1, 100, { Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoITBISRetenido: "18.00" } }),
      ]),
      ["error:invalid_withholding@/DetallesItems/0/Retencion/MontoITBISRetenido"],
    ],
    [
      "E41 withholds more ITBIS than the line has",
      request(
        "41",
        [line(1, 1, 100, { Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoITBISRetenido: "19.01" } })],
        { idDoc: { IndicadorMontoGravado: 0 } },
      ),
      ["warning:invalid_withholding@/DetallesItems/0/Retencion/MontoITBISRetenido"],
    ],
    [
      "E41 withholds all the line's ITBIS",
      request(
        "41",
        [line(1, 1, 100, { Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoITBISRetenido: "18.00" } })],
        { idDoc: { IndicadorMontoGravado: 0 } },
      ),
      [],
    ],
    [
      "E47 withholds more ISR than the payment",
      request(
        "47",
        [line(4, 1, 100, { Retencion: { IndicadorAgenteRetencionoPercepcion: 1, MontoISRRetenido: "100.01" } })],
        { comprador: null },
      ),
      ["warning:invalid_withholding@/DetallesItems/0/Retencion/MontoISRRetenido"],
    ],
    [
      "RNC with a bad check digit is only a warning",
      request("31", [line(4, 1, 1)], { comprador: { RNCComprador: "131880739", RazonSocialComprador: "X" } }),
      ["warning:rnc_check_digit@/Encabezado/Comprador/RNCComprador"],
    ],
    [
      "e-NCF of another type",
      request("31", [line(4, 1, 1)], { idDoc: { eNCF: "E320000000001" } }),
      ["error:encf_type_mismatch@/Encabezado/IdDoc/eNCF"],
    ],
    [
      "FechaLimitePago before FechaEmision",
      request("31", [line(4, 1, 1)], { idDoc: { TipoPago: 2, FechaLimitePago: "31-03-2025" } }),
      ["error:invalid_date_order@/Encabezado/IdDoc/FechaLimitePago"],
    ],
    [
      "expired sequence",
      request("31", [line(4, 1, 1)], { idDoc: { FechaVencimientoSecuencia: "31-12-2024" } }),
      ["error:invalid_date_order@/Encabezado/IdDoc/FechaVencimientoSecuencia"],
    ],
    [
      "E46 with TotalCif ≠ FOB + insurance + freight + other",
      {
        ...request("46", [line(3, 1, 1)]),
        Encabezado: {
          ...request("46", [line(3, 1, 1)]).Encabezado,
          InformacionesAdicionales: {
            CondicionesEntrega: "CIF",
            TotalFob: "1000.00",
            Seguro: "10.00",
            Flete: "50.00",
            TotalCif: "1070.00",
          },
        },
      },
      ["warning:inconsistent_total@/Encabezado/InformacionesAdicionales/TotalCif"],
    ],
    [
      "E46 with consistent customs data",
      {
        ...request("46", [line(3, 1, 1)]),
        Encabezado: {
          ...request("46", [line(3, 1, 1)]).Encabezado,
          InformacionesAdicionales: {
            CondicionesEntrega: "FOB",
            TotalFob: "1000.00",
            Seguro: "10.00",
            Flete: "50.00",
            TotalCif: "1060.00",
          },
        },
      },
      [],
    ],
    [
      "E46 with an unknown Incoterm",
      {
        ...request("46", [line(3, 1, 1)]),
        Encabezado: {
          ...request("46", [line(3, 1, 1)]).Encabezado,
          InformacionesAdicionales: { CondicionesEntrega: "XYZ" },
        },
      },
      ["warning:unknown_incoterm@/Encabezado/InformacionesAdicionales/CondicionesEntrega"],
    ],
  ] as const)("%s", (_name, doc, expected) => {
    const tipo = (doc as J).Encabezado.IdDoc.TipoeCF as TipoeCF;
    const r = validateEcf(doc, ctx(tipo));
    expect(codes(r.problems)).toEqual(expected);
  });

  it.each([
    [{ Encabezado: { IdDoc: { TipoeCF: "32" }, Totales: { MontoTotal: "249999.99" } } }, true],
    [{ Encabezado: { IdDoc: { TipoeCF: "32" }, Totales: { MontoTotal: "250000.00" } } }, false],
    [{ Encabezado: { IdDoc: { TipoeCF: "31" }, Totales: { MontoTotal: "1.00" } } }, false],
    [null, false],
  ])("isRfceSummary(%j) = %s", (doc, expected) => {
    expect(isRfceSummary(doc)).toBe(expected);
  });
});

describe("conditional fields (formato-ecf code 2) and numbering", () => {
  const page = (no: number, desde: number, hasta: number, more: J = {}): J => ({
    PaginaNo: no,
    NoLineaDesde: desde,
    NoLineaHasta: hasta,
    MontoSubtotalPagina: "100.00",
    ...more,
  });
  const two = [line(4, 1, 100), line(4, 1, 100)];
  const paged = (pages: J[], totalPaginas?: number) =>
    request("31", two, {
      idDoc: totalPaginas === undefined ? {} : { TotalPaginas: totalPaginas },
      root: { Paginacion: pages },
    });
  const isc = (extra: J = {}): J =>
    line(1, 1, 500, {
      CantidadReferencia: 12,
      UnidadReferencia: 47,
      GradosAlcohol: "40.00",
      TablaImpuestoAdicional: [{ TipoImpuesto: "006" }],
      ...extra,
    });
  const taxed = (l: J) => request("31", [l], { idDoc: { IndicadorMontoGravado: 0 } });
  const omit = (o: J, k: string) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== k));

  it.each<[string, J, string[]]>([
    ["two pages, numbered and counted", paged([page(1, 1, 1), page(2, 2, 2)], 2), []],
    [
      "Paginacion without TotalPaginas",
      paged([page(1, 1, 1), page(2, 2, 2)]),
      ["error:required@/Encabezado/IdDoc/TotalPaginas"],
    ],
    [
      "TotalPaginas without Paginacion",
      request("31", two, { idDoc: { TotalPaginas: 2 } }),
      ["error:required@/Paginacion"],
    ],
    [
      "TotalPaginas is not the number of pages",
      paged([page(1, 1, 1), page(2, 2, 2)], 3),
      ["error:inconsistent_value@/Encabezado/IdDoc/TotalPaginas"],
    ],
    [
      "a page holding only PaginaNo",
      paged([page(1, 1, 1), { PaginaNo: 2 }], 2),
      ["error:required@/Paginacion/1/NoLineaDesde", "error:required@/Paginacion/1/MontoSubtotalPagina"],
    ],
    [
      "NoLineaDesde without NoLineaHasta",
      paged([page(1, 1, 1), omit(page(2, 2, 2), "NoLineaHasta")], 2),
      ["error:required@/Paginacion/1/NoLineaHasta"],
    ],
    [
      "pages out of order",
      paged([page(2, 1, 1), page(1, 2, 2)], 2),
      ["error:invalid_sequence@/Paginacion/0/PaginaNo", "error:invalid_sequence@/Paginacion/1/PaginaNo"],
    ],
    [
      "NoLineaDesde after NoLineaHasta",
      paged([page(1, 1, 1), page(2, 2, 1)], 2),
      ["error:invalid_range@/Paginacion/1/NoLineaDesde"],
    ],
    [
      "NoLineaHasta beyond the last line",
      paged([page(1, 1, 1), page(2, 2, 3)], 2),
      ["error:invalid_range@/Paginacion/1/NoLineaHasta"],
    ],
    [
      "CantidadReferencia without UnidadReferencia",
      taxed(isc({ UnidadReferencia: undefined, TablaSubcantidad: [{ Subcantidad: "0.750", CodigoSubcantidad: 47 }] })),
      ["error:required@/DetallesItems/0/UnidadReferencia"],
    ],
    [
      "specific ISC with a complete line",
      taxed(isc({ TablaSubcantidad: [{ Subcantidad: "0.750", CodigoSubcantidad: 47 }] })),
      [],
    ],
    ["specific ISC without TablaSubcantidad", taxed(isc()), ["error:required@/DetallesItems/0/TablaSubcantidad"]],
    [
      "a TablaSubcantidad row without CodigoSubcantidad",
      taxed(isc({ TablaSubcantidad: [{ Subcantidad: "0.750" }] })),
      ["error:required@/DetallesItems/0/TablaSubcantidad/0/CodigoSubcantidad"],
    ],
    [
      "a TablaSubcantidad row without Subcantidad",
      taxed(isc({ TablaSubcantidad: [{ CodigoSubcantidad: 47 }] })),
      ["error:required@/DetallesItems/0/TablaSubcantidad/0/Subcantidad"],
    ],
    [
      "a Totales ImpuestosAdicionales row without TipoImpuesto",
      request("31", [line(4, 1, 100, { TablaImpuestoAdicional: [{ TipoImpuesto: "002" }] })], {
        totales: { ImpuestosAdicionales: [{ TasaImpuestoAdicional: "10", OtrosImpuestosAdicionales: "10.00" }] },
      }),
      // Without its code the row matches no computed tax, so its amount is judged against 0 too.
      [
        "error:required@/Encabezado/Totales/ImpuestosAdicionales/0/TipoImpuesto",
        "error:total_out_of_tolerance@/Encabezado/Totales/ImpuestosAdicionales/0/OtrosImpuestosAdicionales",
      ],
    ],
    [
      "NumeroLinea 1, 2 as sent",
      request("31", [line(4, 1, 1, { NumeroLinea: 1 }), line(4, 1, 1, { NumeroLinea: 2 })]),
      [],
    ],
    [
      "NumeroLinea only on the second line, in place",
      request("31", [line(4, 1, 1), line(4, 1, 1, { NumeroLinea: "2" })]),
      [],
    ],
    [
      "NumeroLinea skips a number",
      request("31", [line(4, 1, 1, { NumeroLinea: 1 }), line(4, 1, 1, { NumeroLinea: 3 })]),
      ["error:invalid_sequence@/DetallesItems/1/NumeroLinea"],
    ],
    [
      "NumeroLinea out of order",
      request("31", [line(4, 1, 1, { NumeroLinea: 2 }), line(4, 1, 1, { NumeroLinea: 1 })]),
      ["error:invalid_sequence@/DetallesItems/0/NumeroLinea", "error:invalid_sequence@/DetallesItems/1/NumeroLinea"],
    ],
    [
      "NumeroLinea of the second line given as 5",
      request("31", [line(4, 1, 1), line(4, 1, 1, { NumeroLinea: 5 })]),
      ["error:invalid_sequence@/DetallesItems/1/NumeroLinea"],
    ],
    [
      "a global discount numbered 2",
      request("31", [line(4, 1, 100)], {
        root: {
          DescuentosORecargos: [
            {
              NumeroLinea: 2,
              TipoAjuste: "D",
              TipoValor: "$",
              MontoDescuentooRecargo: "10.00",
              IndicadorFacturacionDescuentooRecargo: 4,
            },
          ],
        },
      }),
      ["error:invalid_sequence@/DescuentosORecargos/0/NumeroLinea"],
    ],
    [
      "RNCComprador and IdentificadorExtranjero both",
      request("32", [line(4, 1, 100)], {
        comprador: { RNCComprador: "131880738", IdentificadorExtranjero: "P123", RazonSocialComprador: "X" },
      }),
      ["error:prohibited@/Encabezado/Comprador/IdentificadorExtranjero"],
    ],
    [
      "an E44 buyer with neither RNCComprador nor IdentificadorExtranjero",
      request("44", [line(4, 1, 100)], { comprador: { RazonSocialComprador: "Embajada" } }),
      ["error:required@/Encabezado/Comprador/RNCComprador"],
    ],
    [
      "an E44 foreign buyer (diplomat)",
      request("44", [line(4, 1, 100)], {
        comprador: { IdentificadorExtranjero: "D-123", RazonSocialComprador: "Embajada" },
      }),
      [],
    ],
    [
      "Mineria without Liquidacion",
      request("32", [
        line(4, 1, 100, { Mineria: { PesoNetoKilogramo: "10.000", PesoNetoMineria: "9.000", TipoAfiliacion: 1 } }),
      ]),
      ["error:required@/DetallesItems/0/Mineria/Liquidacion"],
    ],
  ])("%s", (_name, doc, expected) => {
    const tipo = (doc as J).Encabezado.IdDoc.TipoeCF as TipoeCF;
    expect(codes(validateEcf(doc, ctx(tipo)).problems)).toEqual(expected);
  });

  it("every problem here names its formato-ecf rule", () => {
    const r = validateEcf(paged([page(2, 1, 1), { PaginaNo: 1 }], 3), ctx("31"));
    expect(r.problems.length).toBeGreaterThan(2);
    for (const p of r.problems)
      expect(p.rule).toMatch(/^formato-ecf: (TotalPaginas|PaginaNo|NoLineaDesde|MontoSubtotalPagina)/);
  });
});

describe("credit and debit notes", () => {
  const ref = (codigo: number, fecha = "01-03-2025", ncf = "E310000000001") => ({
    InformacionReferencia: { NCFModificado: ncf, FechaNCFModificado: fecha, CodigoModificacion: codigo },
  });
  const note = (tipo: "33" | "34", codigo: number, fecha?: string, more: J = {}) =>
    request(tipo, [line(4, 1, 100)], { root: ref(codigo, fecha), ...more });

  it.each([
    ["31 days → 1", "01-03-2025", "1"],
    ["exactly 30 days → 0", "02-03-2025", "0"],
  ])("E34 IndicadorNotaCredito is derived: %s", (_name, fecha, expected) => {
    const r = validateEcf(note("34", 3, fecha), ctx("34"));
    expect(r.ok).toBe(true);
    expect((r.document as J).Encabezado.IdDoc.IndicadorNotaCredito).toBe(expected);
  });

  it("E34 IndicadorNotaCredito cannot be derived from a bad date: it is then required", () => {
    const r = validateEcf(note("34", 3, "31-02-2025"), ctx("34"));
    expect(codes(r.problems)).toEqual(
      expect.arrayContaining(["error:required@/Encabezado/IdDoc/IndicadorNotaCredito"]),
    );
  });

  it("E34 IndicadorNotaCredito is checked when sent", () => {
    const r = validateEcf(note("34", 3, "01-03-2025", { idDoc: { IndicadorNotaCredito: 0 } }), ctx("34"));
    expect(codes(r.problems)).toEqual(["error:inconsistent_value@/Encabezado/IdDoc/IndicadorNotaCredito"]);
  });

  it("an E34 that corrects text has only MontoTotal 0.00 in Totales", () => {
    const doc = request("34", [line(4, 1, 100)], {
      root: ref(2),
      totales: { MontoExento: "100.00", MontoTotal: "0.00" },
    });
    const r = validateEcf(doc, ctx("34"));
    expect((r.document as J).Encabezado.Totales).toEqual({ MontoTotal: "0.00" });
    expect((r.document as J).DetallesItems[0].MontoItem).toBe("0.00");
    expect(codes(r.problems)).toEqual(["warning:dropped_field@/Encabezado/Totales/MontoExento"]);
  });

  it.each([
    ["code 5 in an E34", note("34", 5), "error:invalid_codigo_modificacion@/InformacionReferencia/CodigoModificacion"],
    [
      "code 5 in an E31 must reference an E32",
      request("31", [line(4, 1, 1)], { root: ref(5, "01-03-2025", "E310000000001") }),
      "error:invalid_reference@/InformacionReferencia/NCFModificado",
    ],
    [
      "FechaNCFModificado after the note",
      note("33", 3, "02-04-2025"),
      "error:invalid_date_order@/InformacionReferencia/FechaNCFModificado",
    ],
  ] as const)("%s", (_name, doc, expected) => {
    const tipo = (doc as J).Encabezado.IdDoc.TipoeCF as TipoeCF;
    expect(codes(validateEcf(doc, ctx(tipo)).problems)).toContain(expected);
  });

  it("a code 5 E31 referencing an E32 is fine", () => {
    const r = validateEcf(request("31", [line(4, 1, 1)], { root: ref(5, "01-03-2025", "E320000000001") }), ctx("31"));
    expect(codes(r.problems)).toEqual([]);
  });

  // TipoIngresos is required in E33/E34 (XSD minOccurs 1) and derived when a note leaves it out.
  it.each([
    [
      "E34 without it, modified receipt unknown → 01 assumed",
      "34",
      undefined,
      undefined,
      "01",
      ["warning:assumed_value@/Encabezado/IdDoc/TipoIngresos"],
    ],
    [
      "E33 without it, modified receipt unknown → 01 assumed",
      "33",
      undefined,
      undefined,
      "01",
      ["warning:assumed_value@/Encabezado/IdDoc/TipoIngresos"],
    ],
    ["E34 without it, inherits the modified receipt's 03", "34", undefined, "03", "03", []],
    ["E33 without it, inherits the modified receipt's 5 as 05", "33", undefined, "5", "05", []],
    [
      "E34 without it, the modified receipt has none (E41) → 01 assumed",
      "34",
      undefined,
      "",
      "01",
      ["warning:assumed_value@/Encabezado/IdDoc/TipoIngresos"],
    ],
    [
      "E34 without it, the modified receipt's is not a code → 01 assumed",
      "34",
      undefined,
      "09",
      "01",
      ["warning:assumed_value@/Encabezado/IdDoc/TipoIngresos"],
    ],
    ["E34 sends 02: kept, even when the modified receipt has 03", "34", "02", "03", "02", []],
  ] as const)("%s", (_name, tipo, sent, inherited, expected, problems) => {
    const doc = note(tipo, 3, "20-03-2025", { idDoc: { TipoIngresos: sent } });
    const modifiedReceipt =
      inherited === undefined ? undefined : { eNCF: "E310000000001", montoTotal: "1000.00", TipoIngresos: inherited };
    const r = validateEcf(doc, ctx(tipo, modifiedReceipt ? { modifiedReceipt } : {}));
    expect((r.document as J).Encabezado.IdDoc.TipoIngresos).toBe(expected);
    expect(codes(r.problems)).toEqual(problems);
  });

  it.each(["31", "32", "44", "45", "46"] as const)(
    "E%s without TipoIngresos is still refused (only notes derive it)",
    (tipo) => {
      const r = validateEcf(
        request(tipo, [line(tipo === "46" ? 3 : 4, 1, 100)], { idDoc: { TipoIngresos: undefined } }),
        ctx(tipo),
      );
      expect(codes(r.problems)).toContain("error:required@/Encabezado/IdDoc/TipoIngresos");
    },
  );

  it.each([
    ["E310000000001", "300000.00", { RazonSocialComprador: "X" }, []],
    ["E320000000001", "249999.99", { RazonSocialComprador: "X" }, []],
    [
      "E320000000001",
      "250000.00",
      { RazonSocialComprador: "X" },
      ["error:required@/Encabezado/Comprador/RNCComprador"],
    ],
    ["E320000000001", "250000.00", { IdentificadorExtranjero: "P123", RazonSocialComprador: "X" }, []],
  ] as const)("a note on %s of %s identifies the buyer when needed", (ncf, total, comprador, expected) => {
    const doc = request("33", [line(4, 1, 100)], { root: ref(3, "20-03-2025", ncf), comprador });
    const r = validateEcf(doc, ctx("33", { modifiedReceipt: { eNCF: ncf, montoTotal: total } }));
    expect(codes(r.problems)).toEqual(expected);
  });

  it.each([
    ["partial credit within balance", 3, [{ tipo: "34", codigoModificacion: "3", montoTotal: "900.00" }], []],
    [
      "partial credit beyond balance",
      3,
      [{ tipo: "34", codigoModificacion: "3", montoTotal: "950.00" }],
      ["error:credit_exceeds_available@/Encabezado/Totales/MontoTotal"],
    ],
    [
      "annulment after a partial credit",
      1,
      [{ tipo: "34", codigoModificacion: "3", montoTotal: "10.00" }],
      ["error:credit_annulment_after_partial_credit@/Encabezado/Totales/MontoTotal"],
    ],
  ] as const)("against the modified receipt: %s", (_name, codigo, accepted, expected) => {
    const r = validateEcf(
      note("34", codigo, "20-03-2025"),
      ctx("34", {
        modifiedReceipt: {
          eNCF: "E310000000001",
          fechaEmision: "20-03-2025",
          montoTotal: "1000.00",
          acceptedNotes: accepted,
        },
      }),
    );
    expect(codes(r.problems)).toEqual(expected);
  });
});

describe("CodigoModificacion per type (formato-ecf CodigoModificacion, notes 80-81; NCFModificado b)", () => {
  const NOTES = ["33", "34"];
  const onlyNotes = (tipo: TipoeCF) =>
    NOTES.includes(tipo) ? [] : ["error:invalid_codigo_modificacion@/InformacionReferencia/CodigoModificacion"];
  const paper = (tipo: TipoeCF) => `B${String(Number(tipo) - 30).padStart(2, "0")}00000042`;
  // [scenario, CodigoModificacion, NCFModificado for the type, expected problems for the type]
  const scenarios: [string, string, (t: TipoeCF) => string, (t: TipoeCF) => string[]][] = [
    ["1 annuls", "1", () => "E310000000001", onlyNotes],
    ["2 corrects text", "2", () => "E310000000001", onlyNotes],
    ["3 corrects amounts", "3", () => "E310000000001", onlyNotes],
    ["4 replaces the serie B receipt of the equivalent type", "4", paper, () => []],
    [
      "4 with a serie B receipt of another type",
      "4",
      (t) => (t === "31" ? "B0200000042" : "B0100000042"),
      () => ["error:invalid_reference@/InformacionReferencia/NCFModificado"],
    ],
    [
      "4 with an e-NCF",
      "4",
      (t) => `E${t}0000000001`,
      () => ["error:invalid_reference@/InformacionReferencia/NCFModificado"],
    ],
    [
      "5 references an E32",
      "5",
      () => "E320000000001",
      (t) => (t === "31" ? [] : ["error:invalid_codigo_modificacion@/InformacionReferencia/CodigoModificacion"]),
    ],
    [
      "5 references an E31",
      "5",
      () => "E310000000001",
      (t) =>
        t === "31"
          ? ["error:invalid_reference@/InformacionReferencia/NCFModificado"]
          : ["error:invalid_codigo_modificacion@/InformacionReferencia/CodigoModificacion"],
    ],
  ];
  const cases = TIPOS_ECF.flatMap((tipo) =>
    scenarios.map(([name, codigo, ncf, expected]) => [tipo, name, codigo, ncf(tipo), expected(tipo)] as const),
  );

  it.each(cases)("E%s, code %s (%s → %s)", (tipo, _name, codigo, ncf, expected) => {
    const doc = makeEcf(tipo) as J;
    doc.InformacionReferencia = { NCFModificado: ncf, FechaNCFModificado: "01-01-2020", CodigoModificacion: codigo };
    const r = validateEcf(doc, { now, totalsPolicy: "dgii" });
    // Only what the reference itself gets (a note's amounts are other rules' business).
    expect(codes(r.problems).filter((c) => c.includes("@/InformacionReferencia"))).toEqual(expected);
  });

  it.each([
    ["serie E", "E310000000001", []],
    ["serie B", "B0100000042", []],
    ["serie A (19)", "A010010010100000001", []],
    ["serie P (19)", "P010010010100000001", []],
    ["12 characters", "B01000000042", ["error:invalid_encf@/InformacionReferencia/NCFModificado"]],
  ] as const)("NCFModificado %s", (_name, ncf, expected) => {
    const doc = makeEcf("34") as J;
    doc.InformacionReferencia = { ...doc.InformacionReferencia, NCFModificado: ncf, CodigoModificacion: "3" };
    const r = validateEcf(doc, { now, totalsPolicy: "dgii" });
    expect(codes(r.problems).filter((c) => c.includes("@/InformacionReferencia"))).toEqual(expected);
  });
});

describe("completed documents pass the structure check and the official XSD", () => {
  // Requests made from the factories' complete documents by removing everything derivable.
  const strip = (doc: J): J => {
    const d = JSON.parse(JSON.stringify(doc)) as J;
    delete d.Encabezado.Version;
    delete d.Encabezado.IdDoc.eNCF;
    delete d.Encabezado.IdDoc.FechaVencimientoSecuencia;
    delete d.Encabezado.IdDoc.IndicadorNotaCredito;
    delete d.Encabezado.Emisor;
    delete d.Encabezado.Totales;
    if (d.Encabezado.OtraMoneda)
      d.Encabezado.OtraMoneda = {
        TipoMoneda: d.Encabezado.OtraMoneda.TipoMoneda,
        TipoCambio: d.Encabezado.OtraMoneda.TipoCambio,
      };
    delete d.FechaHoraFirma;
    for (const item of d.DetallesItems) {
      delete item.NumeroLinea;
      delete item.MontoItem;
    }
    return d;
  };
  const cases = TIPOS_ECF.flatMap((tipo) =>
    ecfCases(tipo).map(([name, opts]) => [tipo, name, makeEcf(tipo, opts)] as const),
  );

  it.each(cases)("E%s %s", async (tipo, _name, full) => {
    const f = full as J;
    const emisor = { ...f.Encabezado.Emisor };
    delete emisor.FechaEmision;
    const request = strip(f);
    if (tipo === "41" && !request.Encabezado.IdDoc.IndicadorMontoGravado)
      request.Encabezado.IdDoc.IndicadorMontoGravado = "0";
    if (tipo === "32" && !request.Encabezado.Comprador?.RNCComprador)
      request.Encabezado.Comprador = {
        ...request.Encabezado.Comprador,
        RNCComprador: "131880738",
        RazonSocialComprador: "DGII",
      };
    const r = validateEcf(request, {
      now: new Date("2025-04-01T14:15:00Z"),
      eNCF: f.Encabezado.IdDoc.eNCF,
      fechaVencimientoSecuencia: f.Encabezado.IdDoc.FechaVencimientoSecuencia,
      emisor,
    });
    expect(errors(r.problems)).toEqual([]);
    expect(checkStructure(r.document, tipo)).toEqual([]);
    // The derived totals are the factory's (an independent computation).
    const expected = { ...f.Encabezado.Totales };
    const got = { ...(r.document as J).Encabezado.Totales };
    expect(got).toEqual(expected);
    if (f.Encabezado.OtraMoneda)
      expect((r.document as J).Encabezado.OtraMoneda).toMatchObject({
        MontoTotalOtraMoneda: f.Encabezado.OtraMoneda.MontoTotalOtraMoneda,
      });
  });

  it("validates against each type's XSD", async () => {
    for (const tipo of TIPOS_ECF) {
      const xmls = ecfCases(tipo).map(([, opts]) => {
        const f = makeEcf(tipo, opts) as J;
        const r = validateEcf(strip(f), {
          now: new Date("2025-04-01T14:15:00Z"),
          eNCF: f.Encabezado.IdDoc.eNCF,
          fechaVencimientoSecuencia: f.Encabezado.IdDoc.FechaVencimientoSecuencia,
          emisor: f.Encabezado.Emisor,
        });
        return ecfToXml(r.document);
      });
      const results = await validateXsdMany(xmls, tipo, { requireSignature: false });
      results.forEach((res, i) => expect([tipo, i, res.errors]).toEqual([tipo, i, []]));
    }
  });

  it.each([...dgiiTestSetCases(), ...itheskCases()].map((c) => [c.name, c.doc] as const))(
    "DGII certification test-set case %s",
    (name, doc) => {
      const r = validateEcf(doc, { now });
      // E34 text corrections there use a non-billable 1.00 line, and one leaves TipoIngresos empty
      // (derived as 01): accepted with warnings, never an error.
      expect([name, codes(errors(r.problems))]).toEqual([name, []]);
    },
  );
});
