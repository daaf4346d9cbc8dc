import "fake-indexeddb/auto";
import { verifyXml } from "@ecf/shared";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { PosDatabase, type Product } from "../src/db.ts";
import { addLease } from "../src/leases.ts";
import { cartTotals, type CartLine } from "../src/sale/document.ts";
import { issueReceipt, SaleProblem } from "../src/sale/issue.ts";
import { installSigningKey } from "../src/signing/keystore.ts";

let identity: TestIdentity;
let db: PosDatabase;
beforeAll(async () => {
  identity = await createTestIdentity({ rnc: "131880681" });
});
afterEach(async () => {
  await db?.delete();
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const product = (over: Partial<Product> = {}): Product => ({
  code: "001",
  name: "Café molido 1 lb",
  price: "350.00",
  itbis: "18",
  unit: "43",
  kind: "1",
  ...over,
});
const emisor = { rnc: "131880681", legalName: "DEMO COMERCIAL SRL", address: "Calle 1, Santo Domingo" };

async function ready() {
  db = new PosDatabase(`pos-${crypto.randomUUID()}`);
  await installSigningKey(db, {
    pkcs8: b64(identity.pkcs8),
    certificate: b64(identity.certificateDer),
    certificateSerial: null,
  });
  for (const tipo of ["32", "31", "34"])
    await addLease(db, { tipoeCF: tipo, rangeFrom: 1001, rangeTo: 1200, expiresOn: "2099-12-31" });
}

describe("cart totals (shared package)", () => {
  it.each<[string, CartLine[], { total: string; itbis: string; discount: string }]>([
    [
      "one taxed line",
      [{ product: product(), quantity: "2", discountPercent: "" }],
      { total: "826.00", itbis: "126.00", discount: "0.00" },
    ],
    [
      "16 % and exempt",
      [
        { product: product({ itbis: "16", price: "100" }), quantity: "1", discountPercent: "" },
        { product: product({ code: "2", itbis: "E", price: "50.50" }), quantity: "3", discountPercent: "" },
      ],
      { total: "267.50", itbis: "16.00", discount: "0.00" },
    ],
    [
      "10 % line discount",
      [{ product: product({ price: "100" }), quantity: "3", discountPercent: "10" }],
      { total: "318.60", itbis: "48.60", discount: "30.00" },
    ],
  ])("%s", (_label, lines, expected) => {
    const t = cartTotals(lines);
    expect({ total: fmt(t.total), itbis: fmt(t.itbis), discount: fmt(t.discount) }).toEqual(expected);
  });
});

import { formatMoney } from "@ecf/shared/money";
const fmt = formatMoney;

describe("issuing on the device", () => {
  it("E32 by default, signed with the stored non-extractable key, recorded with its outbox entry", async () => {
    await ready();
    const lines = [{ product: product(), quantity: "2", discountPercent: "" }];
    const issued = await issueReceipt(db, {
      tipoeCF: "32",
      emisor,
      lines,
      payment: { method: "efectivo", parts: [{ method: "efectivo", amount: "826.00" }], cashReceived: "1000" },
      environment: "testecf",
      online: false,
      now: new Date("2026-11-21T15:00:00Z"),
    });
    expect(issued.sale.encf).toBe("E320000001001");
    expect(issued.sale.estado).toBe("Contingencia");
    expect(issued.sale.montoTotal).toBe("826.00");
    expect(issued.sale.fechaHoraFirma).toBe("21-11-2026 11:00:00");
    expect(issued.sale.timbreUrl).toContain("ConsultaTimbreFC".toLowerCase());
    const verdict = await verifyXml(issued.signedXml);
    expect(verdict.ok).toBe(true);
    expect((await db.outbox.get(issued.seq))?.state).toBe("pending");
    expect((await db.keys.get("signing"))!.key.extractable).toBe(false);
  });

  it("E31 when the buyer gives an RNC; an invalid RNC is refused before a signature", async () => {
    await ready();
    const lines = [{ product: product(), quantity: "1", discountPercent: "" }];
    const ok = await issueReceipt(db, {
      tipoeCF: "31",
      emisor,
      buyer: { rnc: "131880738", name: "DGII" },
      lines,
      environment: "testecf",
      online: true,
    });
    expect(ok.signedXml).toContain("<RNCComprador>131880738</RNCComprador>");
    expect(ok.signedXml).toContain("<FechaVencimientoSecuencia>31-12-2099</FechaVencimientoSecuencia>");
    const queued = await db.outbox.count();
    await expect(
      issueReceipt(db, {
        tipoeCF: "31",
        emisor,
        buyer: { rnc: "13188", name: "X" },
        lines,
        environment: "testecf",
        online: true,
      }),
    ).rejects.toBeInstanceOf(SaleProblem);
    expect(await db.outbox.count()).toBe(queued);
    // Refused before a number was taken: the next E31 is the next number.
    const next = await issueReceipt(db, {
      tipoeCF: "31",
      emisor,
      buyer: { rnc: "131880738", name: "DGII" },
      lines,
      environment: "testecf",
      online: true,
    });
    expect(next.sale.encf).toBe("E310000001002");
    expect(await db.setting("unused-encf")).toBeUndefined();
  });

  it("E34 credit note for a return refers to the earlier receipt", async () => {
    await ready();
    const lines = [{ product: product(), quantity: "1", discountPercent: "" }];
    const sale = await issueReceipt(db, { tipoeCF: "32", emisor, lines, environment: "testecf", online: true });
    const note = await issueReceipt(db, {
      tipoeCF: "34",
      emisor,
      lines,
      reference: {
        encf: sale.sale.encf!,
        fechaEmision: (sale.sale.document as any).Encabezado.Emisor.FechaEmision,
        montoTotal: sale.sale.montoTotal!,
      },
      environment: "testecf",
      online: true,
    });
    expect(note.sale.encf).toBe("E340000001001");
    expect(note.signedXml).toContain(`<NCFModificado>${sale.sale.encf}</NCFModificado>`);
  });
});

describe("returns (E34) against the balance of the receipt", () => {
  const refund = (sale: Awaited<ReturnType<typeof issueReceipt>>["sale"], lines: CartLine[]) =>
    issueReceipt(db, {
      tipoeCF: "34",
      emisor,
      lines,
      reference: {
        encf: sale.encf!,
        fechaEmision: (sale.document as any).Encabezado.Emisor.FechaEmision,
        montoTotal: sale.montoTotal!,
      },
      environment: "testecf",
      online: false,
    });

  it("a receipt is credited once: a second full return is refused before a number is taken", async () => {
    await ready();
    const lines = [{ product: product(), quantity: "2", discountPercent: "" }];
    const { sale } = await issueReceipt(db, { tipoeCF: "32", emisor, lines, environment: "testecf", online: false });
    const first = await refund(sale, lines);
    expect(first.sale.modifies).toBe(sale.encf);
    await expect(refund(sale, lines)).rejects.toThrow(/ya fue acreditada/);
    // Half of it returned is also more than the nothing that is left.
    await expect(refund(sale, [{ product: product(), quantity: "1", discountPercent: "" }])).rejects.toThrow(
      /ya fue acreditada|excede/,
    );
    expect(await db.outbox.count()).toBe(2);
    expect(await db.setting("unused-encf")).toBeUndefined();
    // A credit note DGII rejected credited nothing: the return can be made again.
    await db.sales.update(first.sale.id, { estado: "Rechazado" });
    expect((await refund(sale, lines)).sale.encf).toBe("E340000001002");
  });

  it("partial returns add up to the total and no further", async () => {
    await ready();
    const lines = [{ product: product(), quantity: "3", discountPercent: "" }];
    const { sale } = await issueReceipt(db, { tipoeCF: "32", emisor, lines, environment: "testecf", online: false });
    const one = [{ product: product(), quantity: "1", discountPercent: "" }];
    await refund(sale, one);
    await refund(sale, [{ product: product(), quantity: "2", discountPercent: "" }]);
    await expect(refund(sale, one)).rejects.toBeInstanceOf(SaleProblem);
  });

  it("a receipt DGII rejected cannot be credited", async () => {
    await ready();
    const lines = [{ product: product(), quantity: "1", discountPercent: "" }];
    const { sale } = await issueReceipt(db, { tipoeCF: "32", emisor, lines, environment: "testecf", online: false });
    await db.sales.update(sale.id, { estado: "Rechazado" });
    await expect(refund({ ...sale, estado: "Rechazado" }, lines)).rejects.toThrow(/rechazado/);
    expect(await db.outbox.count()).toBe(1);
  });
});
