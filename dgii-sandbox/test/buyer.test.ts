// The buyer the emisor-receptor simulator plays, switched per test (PUT /__sandbox/buyer): a forced
// ARECF Estado 1 with its motivo, a forced Estado 0, or authentication required.
import { parseArecf, verifyXml } from "@ecf/shared";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testIdentity, type TestIdentity } from "@ecf/shared/test-support/certs";
import { startSandbox, type RunningSandbox } from "../src/start.ts";
import { delegate, DgiiClient } from "./support/dgii-client.ts";
import { signedEcf } from "./support/documents.ts";

let sandbox: RunningSandbox;
let identity: TestIdentity;
let receptor: DgiiClient;
let sequence = 700;

beforeAll(async () => {
  [sandbox, identity] = await Promise.all([startSandbox({ port: 0 }), testIdentity()]);
  await delegate(sandbox.url, identity);
  receptor = new DgiiClient(sandbox.url, "testecf/emisorreceptor");
});
afterAll(() => sandbox.close());
afterEach(() => fetch(`${sandbox.url}/__sandbox/buyer`, { method: "DELETE" }));

const setBuyer = (body: unknown) =>
  fetch(`${sandbox.url}/__sandbox/buyer`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("PUT /__sandbox/buyer", () => {
  it.each([["1"], ["2"], ["3"], ["4"]])(
    "estado 1 with motivo %s: a signed ARECF saying so, for a valid e-CF",
    async (motivo) => {
      expect((await setBuyer({ estado: "1", motivo })).status).toBe(200);
      const ecf = await signedEcf(identity, "31", { sequence: ++sequence });
      const { status, body } = await receptor.postXml("/fe/recepcion/api/ecf", ecf.xml, ecf.fileName);
      expect(status).toBe(200);
      expect((await verifyXml(body)).ok).toBe(true);
      expect(parseArecf(body)).toMatchObject({
        eNCF: ecf.encf,
        RNCEmisor: ecf.rnc,
        Estado: "1",
        CodigoMotivoNoRecibido: motivo,
      });
    },
  );

  it("estado 0 acknowledges even a second copy; requireAuth refuses a request without its token", async () => {
    await setBuyer({ estado: "0" });
    const ecf = await signedEcf(identity, "31", { sequence: ++sequence });
    for (let i = 0; i < 2; i++)
      expect(parseArecf((await receptor.postXml("/fe/recepcion/api/ecf", ecf.xml, ecf.fileName)).body).Estado).toBe(
        "0",
      );
    await setBuyer({ requireAuth: true });
    expect((await receptor.postXml("/fe/recepcion/api/ecf", ecf.xml, ecf.fileName)).status).toBe(401);
  });

  it("refuses a malformed behaviour", async () => {
    for (const body of [{ estado: "2" }, { estado: "1" }, { estado: "1", motivo: "9" }, { requireAuth: "yes" }])
      expect((await setBuyer(body)).status, JSON.stringify(body)).toBe(400);
  });
});
