import { afterEach, describe, expect, it } from "vitest";
import { clearFaults, issue, issueRequest, issuer, received, setFault } from "./support/issuing.ts";
import { nextNumber, receiptRow } from "./support/ledger.ts";
import { sha256Hex } from "../src/crypto/credentials.ts";
import { requestHashes, stableStringify, withoutAssignedFields } from "../src/issuing/document.ts";

afterEach(clearFaults);

describe("requestHashes", () => {
  const hash = (v: unknown) => sha256Hex(stableStringify(v));
  it("hashes a body without assigned fields once: its document is the whole body", async () => {
    const body = issueRequest("31");
    expect(await requestHashes(body)).toEqual({ request: await hash(body), document: await hash(body) });
  });

  it.each([
    ["an e-NCF", (b: any) => (b.Encabezado.IdDoc.eNCF = "E310000000007")],
    ["a FechaVencimientoSecuencia", (b: any) => (b.Encabezado.IdDoc.FechaVencimientoSecuencia = "31-12-2028")],
    ["a FechaHoraFirma, even null", (b: any) => (b.FechaHoraFirma = null)],
  ])("leaves %s out of the document's hash, not the request's", async (_what, add) => {
    const body = issueRequest("31");
    add(body);
    const hashes = await requestHashes(body);
    expect(hashes.request).toBe(await hash(body));
    expect(hashes.document).toBe(await hash(withoutAssignedFields(body)));
    expect(hashes.document).not.toBe(hashes.request);
  });
});

describe("resending a receipt the service numbered", () => {
  it("with the e-NCF it was given (and the range's expiry echoed) is the same receipt; another document under it is a 409", async () => {
    const { company, token } = await issuer();
    const request = issueRequest("31");
    const first = await issue(token, request);
    expect(first.body, JSON.stringify(first.body)).toMatchObject({
      estado: "Aceptado",
      encf: "E310000000001",
      reenviado: false,
    });

    // What an integration that stored the answer sends again: its request plus the assigned fields.
    const resend = structuredClone(request);
    resend.Encabezado.IdDoc.eNCF = first.body.encf;
    resend.Encabezado.IdDoc.FechaVencimientoSecuencia = "31-12-2030";
    const again = await issue(token, resend);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({
      codigo: "0",
      estado: "Aceptado",
      reenviado: true,
      encf: first.body.encf,
      codigoSeguridad: first.body.codigoSeguridad,
      trackId: first.body.trackId,
    });
    expect(await received(company.rnc, first.body.encf)).toHaveLength(1);

    const different = issueRequest("31", { lines: 2 }, (doc) => (doc.Encabezado.IdDoc.eNCF = first.body.encf));
    const refused = await issue(token, different);
    expect(refused.status).toBe(409);
    expect(refused.body.errors.map((e: { code: string }) => e.code)).toEqual(["encf_used"]);
    expect(await received(company.rnc, first.body.encf)).toHaveLength(1);
  });

  it("in contingency: the resend gets the same 503 Contingencia answer and nothing is signed or sent", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "down" });
    const request = issueRequest("31");
    const first = await issue(token, request);
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ estado: "Contingencia", codigo: "-1" });
    const row = await receiptRow(company.id, first.body.encf);

    const resend = structuredClone(request);
    resend.Encabezado.IdDoc.eNCF = first.body.encf;
    const again = await issue(token, resend);
    expect(again.status, JSON.stringify(again.body)).toBe(503);
    expect(again.body).toMatchObject({
      estado: "Contingencia",
      codigo: "-1",
      reenviado: true,
      encf: first.body.encf,
      codigoSeguridad: first.body.codigoSeguridad,
      urlTimbre: first.body.urlTimbre,
    });
    // The same row and the same signed bytes: nothing was numbered or signed again.
    expect(await receiptRow(company.id, first.body.encf)).toMatchObject({
      id: row!.id,
      xmlSha256: row!.xmlSha256,
      sendAttempts: 0,
    });
    expect(await nextNumber(company.id, "31")).toBe(2);
    expect((await received(company.rnc, first.body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(0);

    const different = issueRequest("31", { lines: 2 }, (doc) => (doc.Encabezado.IdDoc.eNCF = first.body.encf));
    expect((await issue(token, different)).status).toBe(409);
  });
});
