import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildAcecf,
  buildAnecf,
  buildArecf,
  buildRfce,
  buildSemilla,
  DocumentBuildError,
  formatDgiiDate,
  formatDgiiDateTime,
  formatXsDateTime,
  isRfceEligible,
  parseAcecf,
  parseAnecf,
  parseArecf,
  parseDgiiDate,
  parseDgiiDateTime,
  parseRfce,
  parseSemilla,
  rfceFromEcf,
  type AcecfInput,
  type AnecfInput,
  type ArecfInput,
} from "../src/index.ts";
import { validateXsdMany } from "../src/xml/xsd-validate.ts";
import { ACECF_INPUT, ANECF_INPUT, ARECF_INPUT, makeEcf } from "./support/ecf-factories.ts";
import { DGII_KIT } from "./support/kit.ts";

const SAMPLES = `${DGII_KIT}/samples/xml/`;
const sample = (f: string) => readFileSync(SAMPLES + f, "utf8");

describe("RFCE", () => {
  const e32 = makeEcf("32", { lines: 4 });

  it("summarizes the E32: header, buyer, totals and security code, in RFCE order", () => {
    const rfce = rfceFromEcf({ ecf: e32, CodigoSeguridadeCF: "Ab3+/9" });
    const enc = e32.Encabezado as Record<string, Record<string, unknown>>;
    expect(rfce.Encabezado.IdDoc).toEqual({
      TipoeCF: "32",
      eNCF: enc.IdDoc!.eNCF,
      TipoIngresos: "01",
      TipoPago: "1",
      TablaFormasPago: enc.IdDoc!.TablaFormasPago,
    });
    expect(rfce.Encabezado.Emisor).toEqual({
      RNCEmisor: enc.Emisor!.RNCEmisor,
      RazonSocialEmisor: enc.Emisor!.RazonSocialEmisor,
      FechaEmision: enc.Emisor!.FechaEmision,
    });
    // The RFCE has no rate fields (ITBIS1...): everything else in Totales carries over.
    const { ITBIS1, ...totales } = enc.Totales!;
    expect(ITBIS1).toBe("18");
    expect(rfce.Encabezado.Totales).toEqual(totales);
    expect(rfce.Encabezado.CodigoSeguridadeCF).toBe("Ab3+/9");
    const xml = buildRfce({ ecf: e32, CodigoSeguridadeCF: "Ab3+/9" });
    expect(xml).toMatch(/<\/Totales><CodigoSeguridadeCF>Ab3\+\/9<\/CodigoSeguridadeCF><\/Encabezado><\/RFCE>$/);
    expect(parseRfce(xml)).toEqual(rfce);
  });

  it("pads amounts to the 2 places the RFCE schema requires", () => {
    const loose = makeEcf("32", { lines: 1 });
    const totales = (loose.Encabezado as Record<string, Record<string, unknown>>).Totales!;
    totales.MontoTotal = "1180";
    totales.TotalITBIS = "180.0";
    const xml = buildRfce({ ecf: loose, CodigoSeguridadeCF: "123456" });
    expect(xml).toContain("<MontoTotal>1180.00</MontoTotal>");
    expect(xml).toContain("<TotalITBIS>180.00</TotalITBIS>");
  });

  it.each<[string, () => unknown, RegExp]>([
    [
      "an E32 of DOP 250,000 or more",
      () => buildRfce({ ecf: makeEcf("32", { highValue: true }), CodigoSeguridadeCF: "123456" }),
      /under DOP 250000/,
    ],
    ["another type", () => buildRfce({ ecf: makeEcf("31"), CodigoSeguridadeCF: "123456" }), /under DOP/],
    [
      "a 5-character security code",
      () => buildRfce({ ecf: makeEcf("32"), CodigoSeguridadeCF: "12345" }),
      /first 6 characters/,
    ],
    [
      "an E32 without buyer data",
      () => {
        const d = makeEcf("32");
        delete (d.Encabezado as Record<string, unknown>).Comprador;
        return buildRfce({ ecf: d, CodigoSeguridadeCF: "123456" });
      },
      /Comprador/,
    ],
  ])("refuses %s", (_name, build, message) => {
    expect(build).toThrow(DocumentBuildError);
    expect(build).toThrow(message);
  });

  it.each([
    ["249999.99", true],
    ["250000.00", false],
    ["250000.01", false],
    ["0.00", true],
  ])("isRfceEligible with MontoTotal %s → %s", (monto, expected) => {
    const d = makeEcf("32", { lines: 1 });
    (d.Encabezado as Record<string, Record<string, unknown>>).Totales!.MontoTotal = monto;
    expect(isRfceEligible(d)).toBe(expected);
  });

  it("reads DGII's sample RFCE", () => {
    const r = parseRfce(sample("cf32.xml"));
    expect(r.Encabezado.IdDoc.eNCF).toBe("E320005000101");
    expect(r.Encabezado.IdDoc.TablaFormasPago).toEqual([{ FormaPago: "1", MontoPago: "637.20" }]);
    expect(r.Encabezado.Totales.MontoTotal).toBe("637.20");
  });
});

const arecf = ARECF_INPUT;
const acecf = ACECF_INPUT;
const anecf = ANECF_INPUT;

describe("ARECF", () => {
  it.each<[string, ArecfInput, ArecfInput]>([
    ["received", arecf, arecf],
    [
      "not received, bad signature",
      { ...arecf, Estado: "1", CodigoMotivoNoRecibido: "2" },
      { ...arecf, Estado: "1", CodigoMotivoNoRecibido: "2" },
    ],
    ["received drops a motive", { ...arecf, CodigoMotivoNoRecibido: "3" }, arecf],
  ])("%s: parse(build(x))", (_name, input, expected) => {
    expect(parseArecf(buildArecf(input))).toEqual({ Version: "1.0", ...expected });
  });

  it("writes DGII's element order", () => {
    expect(buildArecf({ ...arecf, Estado: "1", CodigoMotivoNoRecibido: "4" })).toBe(
      '<?xml version="1.0" encoding="utf-8"?><ARECF><DetalleAcusedeRecibo><Version>1.0</Version><RNCEmisor>130862346</RNCEmisor><RNCComprador>131880738</RNCComprador><eNCF>E310000000001</eNCF><Estado>1</Estado><CodigoMotivoNoRecibido>4</CodigoMotivoNoRecibido><FechaHoraAcuseRecibo>01-04-2025 10:20:00</FechaHoraAcuseRecibo></DetalleAcusedeRecibo></ARECF>',
    );
  });

  it("refuses a malformed date", () => {
    expect(() => buildArecf({ ...arecf, FechaHoraAcuseRecibo: "2025-04-01T10:20:00" })).toThrow(/FechaHoraAcuseRecibo/);
  });

  it("reads DGII's signed sample", () => {
    expect(parseArecf(sample("customer_receipt.xml"))).toEqual({
      Version: "1.0",
      RNCEmisor: "130862346",
      RNCComprador: "101023122",
      eNCF: "E310005000113",
      Estado: "0",
      FechaHoraAcuseRecibo: "19-08-2023 23:37:02",
    });
  });
});

describe("ACECF", () => {
  it.each<[string, AcecfInput, string]>([
    ["accepted", acecf, "35400.00"],
    ["amount as a JSON number gets its 2 places", { ...acecf, MontoTotal: 35400 }, "35400.00"],
    [
      "rejected with a reason needing escapes",
      { ...acecf, Estado: "2", DetalleMotivoRechazo: `Precio & "cantidad" <incorrectos>` },
      "35400.00",
    ],
  ])("%s", (_name, input, monto) => {
    const xml = buildAcecf(input);
    expect(parseAcecf(xml)).toEqual({ Version: "1.0", ...input, MontoTotal: monto });
  });

  it("refuses an amount with 3 decimals instead of rounding it", () => {
    expect(() => buildAcecf({ ...acecf, MontoTotal: "1.005" })).toThrow(/decimal places/);
  });

  it("reads DGII's sample (MontoTotal kept as written)", () => {
    const r = parseAcecf(sample("aprobacionComercial_E450000000001.xml"));
    expect(r).toMatchObject({ eNCF: "E450000000001", MontoTotal: "35400", Estado: "1", RNCComprador: "131880657" });
  });
});

describe("ANECF", () => {
  it("numbers the lines and computes the counts", () => {
    const doc = parseAnecf(buildAnecf(anecf));
    expect(doc.Encabezado).toEqual({
      Version: "1.0",
      RncEmisor: "130862346",
      CantidadeNCFAnulados: "107",
      FechaHoraAnulacioneNCF: "02-04-2025 08:00:00",
    });
    expect(doc.DetalleAnulacion.map((a) => [a.NoLinea, a.TipoeCF, a.CantidadeNCFAnulados])).toEqual([
      ["1", "31", "6"],
      ["2", "32", "101"],
    ]);
    expect(doc.DetalleAnulacion[1]!.TablaRangoSecuenciasAnuladaseNCF).toEqual(
      anecf.DetalleAnulacion[1]!.TablaRangoSecuenciasAnuladaseNCF,
    );
  });

  it.each<[string, AnecfInput["DetalleAnulacion"], RegExp]>([
    [
      "a range of another type",
      [
        {
          TipoeCF: "31",
          TablaRangoSecuenciasAnuladaseNCF: [
            { SecuenciaeNCFDesde: "E320000000001", SecuenciaeNCFHasta: "E320000000002" },
          ],
        },
      ],
      /type 31/,
    ],
    [
      "a reversed range",
      [
        {
          TipoeCF: "31",
          TablaRangoSecuenciasAnuladaseNCF: [
            { SecuenciaeNCFDesde: "E310000000009", SecuenciaeNCFHasta: "E310000000001" },
          ],
        },
      ],
      /empty/,
    ],
    [
      "sequence zero",
      [
        {
          TipoeCF: "31",
          TablaRangoSecuenciasAnuladaseNCF: [
            { SecuenciaeNCFDesde: "E310000000000", SecuenciaeNCFHasta: "E310000000001" },
          ],
        },
      ],
      /zero/,
    ],
    [
      "mixed series",
      [
        {
          TipoeCF: "31",
          TablaRangoSecuenciasAnuladaseNCF: [
            { SecuenciaeNCFDesde: "E310000000001", SecuenciaeNCFHasta: "F310000000002" },
          ],
        },
      ],
      /series/,
    ],
    [
      "series P",
      [
        {
          TipoeCF: "31",
          TablaRangoSecuenciasAnuladaseNCF: [
            { SecuenciaeNCFDesde: "P310000000001", SecuenciaeNCFHasta: "P310000000002" },
          ],
        },
      ],
      /malformed/,
    ],
    ["no ranges", [{ TipoeCF: "31", TablaRangoSecuenciasAnuladaseNCF: [] }], /no ranges/],
    ["no lines", [], /at least one/],
  ])("refuses %s", (_name, detalle, message) => {
    expect(() => buildAnecf({ ...anecf, DetalleAnulacion: detalle })).toThrow(message);
  });
});

describe("SemillaModel", () => {
  const seed = { valor: "t9vzdixnqM5b59ZZOQ9aWT1n7GuW8X6E+/Q==", fecha: "2025-01-25T13:33:57.395-04:00" };

  it("is built the way DGII serves it and read back", () => {
    const xml = buildSemilla(seed);
    expect(xml).toBe(
      `<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>${seed.valor}</valor><fecha>${seed.fecha}</fecha></SemillaModel>`,
    );
    expect(parseSemilla(xml)).toEqual(seed);
    expect(buildSemilla(seed, { dgiiNamespaces: false })).toContain("<SemillaModel><valor>");
  });

  it.each([
    ["seed.xml", "2022-12-06T10:50:14.9682218-04:00"],
    ["seed-test.xml", "2025-01-25T13:33:57.395-04:00"],
    ["seed-test_140133.xml", "2025-01-25T13:33:57.395-04:00"],
  ])("reads DGII's %s (signed or not)", (file, fecha) => {
    const s = parseSemilla(sample(file));
    expect(s.fecha).toBe(fecha);
    expect(s.valor).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
  });

  it("refuses a fecha that is not an xs:dateTime", () => {
    expect(() => buildSemilla({ ...seed, fecha: "25-01-2025 13:33:57" })).toThrow(/fecha/);
  });
});

describe("every built document is valid against its official XSD", () => {
  it.each<[string, "RFCE" | "ARECF" | "ACECF" | "ANECF" | "Semilla", () => string[]]>([
    [
      "RFCE",
      "RFCE",
      () => [
        buildRfce({ ecf: makeEcf("32"), CodigoSeguridadeCF: "Ab3+/9" }),
        buildRfce({
          ecf: makeEcf("32", { lines: 20, otraMoneda: true, trickyText: true }),
          CodigoSeguridadeCF: "zz&<>9",
        }),
      ],
    ],
    ["ARECF", "ARECF", () => [buildArecf(arecf), buildArecf({ ...arecf, Estado: "1", CodigoMotivoNoRecibido: "1" })]],
    [
      "ACECF",
      "ACECF",
      () => [
        buildAcecf(acecf),
        buildAcecf({ ...acecf, Estado: "2", DetalleMotivoRechazo: "Montos no coinciden & otros" }),
      ],
    ],
    ["ANECF", "ANECF", () => [buildAnecf(anecf)]],
    ["Semilla", "Semilla", () => [buildSemilla({ valor: "abc==", fecha: "2025-01-25T13:33:57.395-04:00" })]],
  ])("%s", async (_name, kind, build) => {
    const results = await validateXsdMany(build(), kind, { requireSignature: false });
    expect(results.filter((r) => !r.valid)).toEqual([]);
  });
});

describe("DGII dates (Santo Domingo, UTC-4, no DST)", () => {
  it.each([
    ["2025-04-01T14:15:00Z", "01-04-2025", "01-04-2025 10:15:00", "2025-04-01T10:15:00.000-04:00"],
    ["2025-01-01T03:59:59.123Z", "31-12-2024", "31-12-2024 23:59:59", "2024-12-31T23:59:59.123-04:00"],
    ["2024-07-15T04:00:00Z", "15-07-2024", "15-07-2024 00:00:00", "2024-07-15T00:00:00.000-04:00"],
  ])("%s → %s / %s / %s", (iso, date, dateTime, xs) => {
    const instant = new Date(iso);
    expect(formatDgiiDate(instant)).toBe(date);
    expect(formatDgiiDateTime(instant)).toBe(dateTime);
    expect(formatXsDateTime(instant)).toBe(xs);
    expect(parseDgiiDateTime(dateTime)?.getTime()).toBe(Math.floor(instant.getTime() / 1000) * 1000);
  });

  it.each(["31-02-2025 10:00:00", "01-04-2025 24:00:00", "1-04-2025 10:00:00", "2025-04-01 10:00:00"])(
    "parseDgiiDateTime refuses %s",
    (text) => {
      expect(parseDgiiDateTime(text)).toBeUndefined();
    },
  );

  it("parseDgiiDate gives Santo Domingo midnight", () => {
    expect(parseDgiiDate("01-04-2025")?.toISOString()).toBe("2025-04-01T04:00:00.000Z");
    expect(parseDgiiDate("30-02-2025")).toBeUndefined();
  });
});
