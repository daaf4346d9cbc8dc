// Shelf prices with ITBIS included: the document says IndicadorMontoGravado 1 and its totals are
// DGII's (formato-ecf fields 93-110: the included amounts divided by 1 + rate, rounded half up),
// compared to the cent with the shared package's computation and with figures worked by hand.
import "fake-indexeddb/auto";
import { computeTotals } from "@ecf/shared/totals";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { PosDatabase, type Product } from "../src/db.ts";
import { addLease } from "../src/leases.ts";
import { cartTotals, detailItems, documentPrice, pricesIncludeItbis, type CartLine } from "../src/sale/document.ts";
import { issueReceipt } from "../src/sale/issue.ts";
import { installSigningKey } from "../src/signing/keystore.ts";
import { formatMoney } from "@ecf/shared/money";

let identity: TestIdentity;
let db: PosDatabase | undefined;
beforeAll(async () => {
  identity = await createTestIdentity({ rnc: "131880681" });
});
afterEach(async () => {
  await db?.delete();
  db = undefined;
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const emisor = { rnc: "131880681", legalName: "DEMO COMERCIAL SRL", address: "Calle 1, Santo Domingo" };
const product = (over: Partial<Product>): Product => ({
  code: "P",
  name: "Producto",
  price: "100.00",
  itbis: "18",
  unit: "43",
  kind: "1",
  ...over,
});
const line = (p: Partial<Product>, quantity: string, discountPercent = ""): CartLine => ({
  product: product(p),
  quantity,
  discountPercent,
});

async function ready(): Promise<PosDatabase> {
  db = new PosDatabase(`pos-${crypto.randomUUID()}`);
  await installSigningKey(db, {
    pkcs8: b64(identity.pkcs8),
    certificate: b64(identity.certificateDer),
    certificateSerial: null,
  });
  for (const tipo of ["32", "31", "34"])
    await addLease(db, { tipoeCF: tipo, rangeFrom: 1, rangeTo: 500, expiresOn: "2099-12-31" });
  return db;
}

interface Expected {
  indicador: "0" | "1" | undefined;
  MontoGravadoI1?: string;
  MontoGravadoI2?: string;
  MontoExento?: string;
  TotalITBIS?: string;
  MontoTotal: string;
}

// Worked by hand from formato-ecf 93 c / 94 c (Σ MontoItem ÷ (1 + rate), half up), 100 and 110.
const CASES: [string, CartLine[], Expected][] = [
  // 99.99 ÷ 1.18 = 84.7373 → 84.74; × 0.18 = 15.2532 → 15.25; 84.74 + 15.25 = 99.99
  [
    "99.99 included, quantity 1",
    [line({ price: "99.99", priceIncludesItbis: true }, "1")],
    { indicador: "1", MontoGravadoI1: "84.74", TotalITBIS: "15.25", MontoTotal: "99.99" },
  ],
  // 299.97 ÷ 1.18 = 254.2118 → 254.21; × 0.18 = 45.7578 → 45.76; total 299.97
  [
    "99.99 included, quantity 3",
    [line({ price: "99.99", priceIncludesItbis: true }, "3")],
    { indicador: "1", MontoGravadoI1: "254.21", TotalITBIS: "45.76", MontoTotal: "299.97" },
  ],
  // 7.5 × 99.99 = 749.925 → 749.93; ÷ 1.18 = 635.5339 → 635.53; × 0.18 = 114.3954 → 114.40; total 749.93
  [
    "99.99 included, quantity 7.5",
    [line({ price: "99.99", priceIncludesItbis: true }, "7.5")],
    { indicador: "1", MontoGravadoI1: "635.53", TotalITBIS: "114.40", MontoTotal: "749.93" },
  ],
  // 118.00 ÷ 1.18 = 100.00 exactly
  [
    "118.00 included",
    [line({ price: "118.00", priceIncludesItbis: true }, "2")],
    { indicador: "1", MontoGravadoI1: "200.00", TotalITBIS: "36.00", MontoTotal: "236.00" },
  ],
  // a rounding cent: 3 × 0.10 = 0.30; ÷ 1.18 = 0.2542 → 0.25; × 0.18 = 0.045 → 0.05; total 0.30
  [
    "0.10 included, quantity 3",
    [line({ price: "0.10", priceIncludesItbis: true }, "3")],
    { indicador: "1", MontoGravadoI1: "0.25", TotalITBIS: "0.05", MontoTotal: "0.30" },
  ],
  // 10 % off 299.97 = 30.00 (29.997 half up); 269.97 ÷ 1.18 = 228.7881 → 228.79; × 0.18 = 41.1822 → 41.18; total 269.97
  [
    "included with a line discount",
    [line({ price: "99.99", priceIncludesItbis: true }, "3", "10")],
    { indicador: "1", MontoGravadoI1: "228.79", TotalITBIS: "41.18", MontoTotal: "269.97" },
  ],
  // 16 %: 2 × 57.50 = 115.00 ÷ 1.16 = 99.1379 → 99.14; × 0.16 = 15.8624 → 15.86; total 115.00
  [
    "16 % included",
    [line({ price: "57.50", itbis: "16", priceIncludesItbis: true }, "2")],
    { indicador: "1", MontoGravadoI2: "99.14", TotalITBIS: "15.86", MontoTotal: "115.00" },
  ],
  // Mixed: the price without ITBIS becomes 100.00 × 1.18 = 118.0000 in the document;
  // rate 1: 299.97 + 236.00 = 535.97 ÷ 1.18 = 454.2119 → 454.21; × 0.18 = 81.7578 → 81.76;
  // rate 2: 95.25 × 1.16 = 110.49 ÷ 1.16 = 95.25; × 0.16 = 15.24; exempt 50.50;
  // total 454.21 + 95.25 + 50.50 + 81.76 + 15.24 = 696.96 (299.97 + 236.00 + 110.49 + 50.50)
  [
    "mixed: included, not included (18 % and 16 %) and exempt",
    [
      line({ code: "A", price: "99.99", priceIncludesItbis: true }, "3"),
      line({ code: "B", price: "100.00" }, "2"),
      line({ code: "C", price: "95.25", itbis: "16" }, "1"),
      line({ code: "D", price: "50.50", itbis: "E" }, "1"),
    ],
    {
      indicador: "1",
      MontoGravadoI1: "454.21",
      MontoGravadoI2: "95.25",
      MontoExento: "50.50",
      TotalITBIS: "97.00",
      MontoTotal: "696.96",
    },
  ],
  // The shelf prices the customer saw, to the cent (issue 34): 275.50 ÷ 1.18 = 233.4746 → 233.47;
  // the ITBIS is the rest, 42.03 (formato-ecf's 233.47 × 0.18 = 42.02 is a cent short, within tolerance).
  [
    "Azúcar 180.00 exempt + Aceite 275.50 included",
    [
      line({ code: "AZ", price: "180.00", itbis: "E" }, "1"),
      line({ code: "AC", price: "275.50", priceIncludesItbis: true }, "1"),
    ],
    { indicador: "1", MontoGravadoI1: "233.47", MontoExento: "180.00", TotalITBIS: "42.03", MontoTotal: "455.50" },
  ],
  // 120.00 ÷ 1.18 = 101.6949 → 101.69; ITBIS 120.00 − 101.69 = 18.31; + 20.00 exempt = 140.00
  [
    "Refresco 120.00 included + Plátano 20.00 exempt",
    [
      line({ code: "RF", price: "120.00", priceIncludesItbis: true }, "1"),
      line({ code: "PL", price: "20.00", itbis: "E" }, "1"),
    ],
    { indicador: "1", MontoGravadoI1: "101.69", MontoExento: "20.00", TotalITBIS: "18.31", MontoTotal: "140.00" },
  ],
  // Nothing included: as before (IndicadorMontoGravado 0, ITBIS on top).
  [
    "none included",
    [line({ price: "99.99" }, "3")],
    { indicador: "0", MontoGravadoI1: "299.97", TotalITBIS: "53.99", MontoTotal: "353.96" },
  ],
  // Exempt lines only: an included flag on them changes nothing and no indicator is written.
  [
    "exempt only, flagged included",
    [line({ price: "99.99", itbis: "E", priceIncludesItbis: true }, "3")],
    { indicador: undefined, MontoExento: "299.97", MontoTotal: "299.97" },
  ],
];

describe("prices with ITBIS included", () => {
  it("a price without ITBIS in an included document is price × (1 + rate), to 4 decimals", () => {
    expect(documentPrice(product({ price: "100.00" }), true)).toEqual(
      documentPrice(product({ price: "118.0000", priceIncludesItbis: true }), true),
    );
    expect(formatMoney(documentPrice(product({ price: "33.3333" }), true))).toBe("39.33"); // 39.333294 → 39.3333
    expect(documentPrice(product({ price: "33.3333" }), true).scale).toBe(4);
    expect(pricesIncludeItbis([line({ itbis: "E", priceIncludesItbis: true }, "1")])).toBe(false);
    expect(pricesIncludeItbis([line({}, "1"), line({ priceIncludesItbis: true }, "1")])).toBe(true);
  });

  it.each(CASES)(
    "%s: the cart, the signed document and the shared totals agree to the cent",
    async (_label, lines, expected) => {
      const d = await ready();
      const issued = await issueReceipt(d, { tipoeCF: "32", emisor, lines, environment: "testecf", online: false });
      const doc = issued.sale.document as {
        Encabezado: { IdDoc: Record<string, string>; Totales: Record<string, string> };
        DetallesItems: Record<string, string>[];
      };
      const totales = doc.Encabezado.Totales;
      expect(doc.Encabezado.IdDoc.IndicadorMontoGravado).toBe(expected.indicador);
      // The shared computation over the signed document gives the same Totales, field by field.
      expect(computeTotals(doc).Totales).toEqual(totales);
      // And the figures worked by hand.
      const { indicador: _, ...amounts } = expected;
      for (const [key, value] of Object.entries(amounts)) expect(totales[key], key).toBe(value);
      expect(totales.MontoGravadoTotal).toBe(
        expected.MontoGravadoI1 || expected.MontoGravadoI2
          ? formatMoney(sumOf(expected.MontoGravadoI1, expected.MontoGravadoI2))
          : undefined,
      );
      // The till shows (and charges) what the document says.
      const cart = cartTotals(lines);
      expect(formatMoney(cart.total)).toBe(totales.MontoTotal);
      expect(formatMoney(cart.itbis)).toBe(totales.TotalITBIS ?? "0.00");
      expect(issued.sale.montoTotal).toBe(totales.MontoTotal);
      // The lines the signed XML carries are the ones the till built.
      expect(doc.DetallesItems.map((i) => i.MontoItem)).toEqual(detailItems(lines).map((i) => i.MontoItem));
      if (expected.indicador)
        expect(issued.signedXml).toContain(`<IndicadorMontoGravado>${expected.indicador}</IndicadorMontoGravado>`);
      else expect(issued.signedXml).not.toContain("IndicadorMontoGravado");
    },
  );

  it("a full return of an included sale repeats its lines and total (E34)", async () => {
    const d = await ready();
    const lines = CASES.find(([label]) => label.startsWith("mixed"))![1];
    const { sale } = await issueReceipt(d, { tipoeCF: "32", emisor, lines, environment: "testecf", online: false });
    const doc = sale.document as {
      Encabezado: { IdDoc: { IndicadorMontoGravado: string }; Emisor: { FechaEmision: string } };
      DetallesItems: Record<string, string>[];
    };
    // As the app rebuilds a return from the signed document: its prices are the document's.
    const back: CartLine[] = doc.DetallesItems.map((item) => ({
      product: product({
        name: item.NombreItem,
        price: item.PrecioUnitarioItem,
        itbis: ({ "1": "18", "2": "16", "3": "0" } as const)[item.IndicadorFacturacion as "1"] ?? "E",
        priceIncludesItbis: doc.Encabezado.IdDoc.IndicadorMontoGravado === "1",
      }),
      quantity: item.CantidadItem!,
      discountPercent: "",
    }));
    const note = await issueReceipt(d, {
      tipoeCF: "34",
      emisor,
      lines: back,
      reference: { encf: sale.encf!, fechaEmision: doc.Encabezado.Emisor.FechaEmision, montoTotal: sale.montoTotal! },
      environment: "testecf",
      online: false,
    });
    expect(note.sale.montoTotal).toBe(sale.montoTotal);
    expect(note.signedXml).toContain("<IndicadorMontoGravado>1</IndicadorMontoGravado>");
  });
});

import { dec, sum } from "@ecf/shared/money";
const sumOf = (...values: (string | undefined)[]) => sum(values.filter((v): v is string => !!v).map(dec));
