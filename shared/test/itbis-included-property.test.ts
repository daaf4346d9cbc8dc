// Prices that include ITBIS (IndicadorMontoGravado 1): the receipt's total is the sum of what the
// customer was charged, to the cent, for every shelf price from 0.01 to 10,000.00 at 18 % and
// 16 %; the rounding cent sits in the ITBIS, within a cent of formato-ecf's round(gravado × rate)
// and so inside DGII's tolerance (informe-tecnico §12). Carts of mixed rates, quantities and line
// discounts go through the validator and the official XSD.
import { describe, expect, it } from "vitest";
import { abs, add, compare, dec, formatMoney, mul, percentOf, roundHalfUp, sub, sum } from "../src/money.ts";
import { computeTotals } from "../src/totals.ts";
import { globalTolerance, judgeDifference } from "../src/tolerance.ts";
import { validateEcf } from "../src/validate.ts";
import { ecfToXml } from "../src/xml/serialize.ts";
import { validateXsdMany } from "../src/xml/xsd-validate.ts";

const RATES = { "1": "18", "2": "16" } as const;
const ONE_CENT = dec("0.01");
const cents = (c: number) => `${Math.trunc(c / 100)}.${String(c % 100).padStart(2, "0")}`;

interface Line {
  indicador: "1" | "2" | "3" | "4";
  quantity: string;
  price: string;
  /** Line discount in percent, or undefined. */
  discount?: string;
}

/** A line as the till writes it: MontoItem = round(quantity × price) − round(discount). */
function item(line: Line, i: number): Record<string, unknown> {
  const gross = roundHalfUp(mul(dec(line.quantity), dec(line.price)));
  const discount = line.discount ? roundHalfUp(percentOf(gross, dec(line.discount))) : undefined;
  const out: Record<string, unknown> = {
    NumeroLinea: String(i + 1),
    IndicadorFacturacion: line.indicador,
    NombreItem: `Producto ${i + 1}`,
    IndicadorBienoServicio: "1",
    CantidadItem: line.quantity,
    UnidadMedida: "43",
    PrecioUnitarioItem: line.price,
  };
  if (discount && discount.coef !== 0n) {
    out.DescuentoMonto = formatMoney(discount);
    out.TablaSubDescuento = [
      { TipoSubDescuento: "%", SubDescuentoPorcentaje: line.discount, MontoSubDescuento: formatMoney(discount) },
    ];
  }
  out.MontoItem = formatMoney(discount ? sub(gross, discount) : gross);
  return out;
}

function e32(lines: readonly Line[], n: number): Record<string, unknown> {
  const idDoc: Record<string, unknown> = { TipoeCF: "32", eNCF: `E32${String(n).padStart(10, "0")}` };
  if (lines.some((l) => l.indicador === "1" || l.indicador === "2")) idDoc.IndicadorMontoGravado = "1";
  idDoc.TipoIngresos = "01";
  idDoc.TipoPago = "1";
  return {
    Encabezado: {
      Version: "1.0",
      IdDoc: idDoc,
      Emisor: {
        RNCEmisor: "130862346",
        RazonSocialEmisor: "DEMO COMERCIAL SRL",
        DireccionEmisor: "Calle 1, Santo Domingo",
      },
      Comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" },
    },
    DetallesItems: lines.map(item),
  };
}

type Doc = { Encabezado: { Totales: Record<string, string> }; DetallesItems: Record<string, string>[] };
const charged = (doc: Doc) => sum(doc.DetallesItems.map((i) => dec(i.MontoItem!)));

/** formato-ecf's ITBIS of a rate bucket (field 101): round(MontoGravadoIn × rate). */
const formulaItbis = (gravado: string, rate: string) => roundHalfUp(percentOf(dec(gravado), dec(rate)));

describe("ITBIS included: the total is what the customer was charged", () => {
  it.each([
    [
      "Azúcar 180.00 (exento) + Aceite 275.50",
      "455.50",
      [
        { indicador: "4", quantity: "1", price: "180.00" },
        { indicador: "1", quantity: "1", price: "275.50" },
      ],
    ],
    [
      "Refresco 120.00 + Plátano 20.00 (exento)",
      "140.00",
      [
        { indicador: "1", quantity: "1", price: "120.00" },
        { indicador: "4", quantity: "1", price: "20.00" },
      ],
    ],
  ] as [string, string, Line[]][])("%s → %s", (_label, total, lines) => {
    const t = computeTotals(e32(lines, 1)).Totales;
    expect(t.MontoTotal).toBe(total);
    // 275.50 ÷ 1.18 = 233.47; the ITBIS is the rest, 42.03 (the formula's 42.02 plus the cent).
    expect(formatMoney(add(dec(t.MontoGravadoTotal!), dec(t.TotalITBIS!)))).toBe(
      formatMoney(sub(dec(total), dec(t.MontoExento!))),
    );
  });

  it.each(Object.entries(RATES))(
    "every price 0.01 … 10,000.00, IndicadorFacturacion %s (ITBIS %s): total = price",
    (indicador, rate) => {
      const failures: string[] = [];
      for (let c = 1; c <= 1_000_000; c++) {
        const price = cents(c);
        const doc = {
          Encabezado: { IdDoc: { TipoeCF: "32", IndicadorMontoGravado: "1" } },
          DetallesItems: [
            { IndicadorFacturacion: indicador, CantidadItem: "1", PrecioUnitarioItem: price, MontoItem: price },
          ],
        };
        const t = computeTotals(doc).Totales;
        const gravado = t[`MontoGravadoI${indicador}` as "MontoGravadoI1"]!;
        const itbis = t[`TotalITBIS${indicador}` as "TotalITBIS1"]!;
        const off = abs(sub(dec(itbis), formulaItbis(gravado, rate)));
        if (t.MontoTotal !== price || compare(off, ONE_CENT) > 0 || t.TotalITBIS !== itbis)
          failures.push(`${price}: ${JSON.stringify(t)}`);
        if (failures.length >= 5) break;
      }
      expect(failures).toEqual([]);
    },
  );

  it("single and mixed carts, with and without discounts, pass the validator and the XSD", async () => {
    const random = seeded(34);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const carts: Line[][] = [];
    // Single lines: the extremes and a stride through the whole range, at both rates.
    const singles = [1, 10, 99, 27550, 99_999, 1_000_000, ...Array.from({ length: 200 }, (_, i) => 1 + i * 4999)];
    for (const c of singles)
      for (const ind of ["1", "2"] as const) carts.push([{ indicador: ind, quantity: "1", price: cents(c) }]);
    // Mixed carts (under 250,000: an E32 that needs no buyer): included rates next to 0 % and exempt, several quantities, with and without discounts.
    for (let n = 0; n < 300; n++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 6) }, (): Line => {
        const line: Line = {
          indicador: pick(["1", "2", "1", "4", "3"] as const),
          quantity: pick(["1", "2", "3", "1.5", "0.25"]),
          price: cents(1 + Math.floor(random() * 1_000_000)),
        };
        if (n % 2 === 1 && random() < 0.6) line.discount = pick(["5", "10", "12.5", "33.33", "50"]);
        return line;
      });
      if (!lines.some((l) => l.indicador === "1" || l.indicador === "2")) lines[0]!.indicador = "1";
      carts.push(lines);
    }
    const now = new Date("2026-11-20T14:00:00Z");
    const xmls: string[] = [];
    carts.forEach((lines, n) => {
      const r = validateEcf(e32(lines, n + 1), { now });
      expect(
        r.problems.filter((p) => p.severity === "error"),
        JSON.stringify(lines),
      ).toEqual([]);
      const doc = r.document as Doc;
      const t = doc.Encabezado.Totales;
      expect(t.MontoTotal, JSON.stringify(lines)).toBe(formatMoney(charged(doc)));
      // Each rate's ITBIS is within a cent of formato-ecf's formula, inside the global tolerance.
      for (const [ind, rate] of Object.entries(RATES)) {
        const gravado = t[`MontoGravadoI${ind}`];
        if (!gravado) continue;
        const itbis = dec(t[`TotalITBIS${ind}`]!);
        expect(compare(abs(sub(itbis, formulaItbis(gravado, rate))), ONE_CENT)).toBeLessThanOrEqual(0);
        expect(judgeDifference(itbis, formulaItbis(gravado, rate), globalTolerance(lines.length)).withinTolerance).toBe(
          true,
        );
      }
      xmls.push(ecfToXml(doc));
    });
    const results = await validateXsdMany(xmls, "32", { requireSignature: false });
    expect(results.flatMap((r, i) => (r.valid ? [] : [[i, r.errors]]))).toEqual([]);
  });
});

/** mulberry32: a small deterministic generator, so a failing cart is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
