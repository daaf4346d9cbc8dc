// No number is lost: the till checks the whole sale before it takes an e-NCF, so a sale the
// validator refuses leaves no gap; the next sale gets the number the refused one would have had.
import "fake-indexeddb/auto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { PosDatabase, type Product } from "../src/db.ts";
import { addLease, TAKEN_ENCF, UNUSED_ENCF } from "../src/leases.ts";
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
const emisor = { rnc: "131880681", legalName: "DEMO COMERCIAL SRL", address: "Calle 1, Santo Domingo" };
const tv = (price: string): Product => ({
  code: "TV",
  name: "Televisor 85 pulgadas",
  price,
  itbis: "18",
  unit: "43",
  kind: "1",
  priceIncludesItbis: true,
});

describe("a refused sale takes no number", () => {
  it("an E32 of 250,000 or more without a buyer is refused before numbering; the next sale gets E320000001001", async () => {
    db = new PosDatabase(`pos-${crypto.randomUUID()}`);
    await installSigningKey(db, {
      pkcs8: b64(identity.pkcs8),
      certificate: b64(identity.certificateDer),
      certificateSerial: null,
    });
    await addLease(db, { tipoeCF: "32", rangeFrom: 1001, rangeTo: 1200, expiresOn: "2099-12-31" });
    const sale = (price: string) =>
      issueReceipt(db, {
        tipoeCF: "32",
        emisor,
        lines: [{ product: tv(price), quantity: "1", discountPercent: "" }],
        environment: "testecf",
        online: false,
      });

    const refused = await sale("300000.00").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SaleProblem);
    expect((refused as SaleProblem).message).toMatch(/^El comprobante tiene errores: /);
    expect(await db.setting(UNUSED_ENCF)).toBeUndefined();
    expect(await db.setting(TAKEN_ENCF)).toBeUndefined();
    expect((await db.leases.toArray()).map((l) => l.next)).toEqual([1001]);

    const issued = await sale("30000.00");
    expect(issued.sale.encf).toBe("E320000001001");
  });
});
