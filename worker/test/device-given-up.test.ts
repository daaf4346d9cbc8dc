// POST /devices/given-up-numbers: a till voids (ANECF) the numbers it took from its own leases and
// will never sign; another device's numbers, numbers outside any lease and numbers holding a
// receipt are refused; a repeat sends nothing twice.
import { ecfToXml, fechaHoraFirma, fromBase64, signEcfXml } from "@ecf/shared";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { admin, authed, companyWithToken } from "./support/accounts.ts";
import { call, postJson } from "./support/http.ts";
import { clearFaults, received, registerSigner, setFault } from "./support/issuing.ts";
import { issuerSql } from "./support/ledger.ts";
import { openMaterial, tillKeys, type WrappedMaterial } from "./support/till-keys.ts";

afterEach(clearFaults);

const fixtures = inject("certificates");
const bytes = (b64: string) => fromBase64(b64)!;
const encf = (tipo: string, n: number) => `E${tipo}${String(n).padStart(10, "0")}`;

interface Paired {
  token: string;
  company: { registryNumber: string };
  signing: WrappedMaterial;
  leases: { tipoeCF: string; rangeFrom: number; rangeTo: number }[];
}

/** An issuer with a certificate, ranges for the till's types and two paired tills. */
async function twoTills() {
  const { company, token } = await companyWithToken();
  const form = new FormData();
  form.set("file", new File([new Uint8Array(bytes(fixtures.forgeP12))], "firma.p12"));
  form.set("password", fixtures.password);
  const uploaded = await call(`/admin/companies/${company.id}/certificate`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    body: form,
  });
  expect(uploaded.status).toBe(200);
  await registerSigner(company.rnc);
  for (const tipo of ["32", "31", "34"])
    await admin("PUT", `/admin/companies/${company.id}/sequences/${tipo}`, {
      rangeFrom: 1,
      rangeTo: 100_000,
      expiresOn: "2099-12-31",
    });
  const pairOne = async (name: string) => {
    const created = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, { name });
    const res = await postJson("/devices/pair", { pairingCode: created.pairingCode, publicKey: TILL.publicKey });
    expect(res.status).toBe(200);
    return (await res.json()) as Paired;
  };
  const mine = await pairOne("Caja 1");
  const other = await pairOne("Caja 2");
  return { company: { ...company, rnc: mine.company.registryNumber }, companyToken: token, mine, other };
}

/** One key pair for every till of this file: the signing key travels wrapped to it. */
const TILL = await tillKeys();

const lease32 = (p: Paired) => p.leases.find((l) => l.tipoeCF === "32")!;

type Result = { tipoeCF: string; encf: string; anulado: boolean; replayed: boolean; error?: { code: string } };
async function giveUp(token: string, numbers: { tipoeCF: string; encf: string }[]) {
  const res = await postJson("/devices/given-up-numbers", { numbers }, authed(token));
  return { status: res.status, body: (await res.json()) as { results: Result[] } & Record<string, any> };
}

const anecfs = async (rnc: string) => (await received(rnc)).filter((r) => r.kind === "anecf");
const voidedRanges = (companyId: string) =>
  issuerSql(companyId, "SELECT tipo_ecf, first_number, last_number FROM voided_ranges ORDER BY first_number");

async function signedReceipt(p: Paired, sequence: number) {
  const doc = makeEcf("32", { sequence, lines: 2, fechaHoraFirma: fechaHoraFirma(new Date()) }) as {
    Encabezado: { Emisor: Record<string, unknown> };
  };
  doc.Encabezado.Emisor.RNCEmisor = p.company.registryNumber;
  return signEcfXml(ecfToXml(doc), await openMaterial(TILL, p.signing), bytes(p.signing.certificate));
}

describe("POST /devices/given-up-numbers", () => {
  it("voids a number of the device's own lease with one ANECF; the repeat answers so and sends nothing", async () => {
    const { company, mine } = await twoTills();
    const number = encf("32", lease32(mine).rangeFrom + 5);
    const first = await giveUp(mine.token, [{ tipoeCF: "32", encf: number }]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.results).toEqual([{ tipoeCF: "32", encf: number, anulado: true, replayed: false }]);
    const sent = await anecfs(company.rnc);
    expect(sent).toHaveLength(1);
    expect(await voidedRanges(company.id)).toEqual([
      { tipo_ecf: "32", first_number: lease32(mine).rangeFrom + 5, last_number: lease32(mine).rangeFrom + 5 },
    ]);

    // The till's answer was lost: it sends the same list again.
    const again = await giveUp(mine.token, [{ tipoeCF: "32", encf: number }]);
    expect(again.status).toBe(200);
    expect(again.body.results).toEqual([{ tipoeCF: "32", encf: number, anulado: true, replayed: true }]);
    expect(await anecfs(company.rnc)).toHaveLength(1);

    // A voided number never becomes a receipt, alone or in a batch.
    const late = await signedReceipt(mine, lease32(mine).rangeFrom + 5);
    const single = await postJson("/devices/receipts", { xml: late }, authed(mine.token));
    expect(single.status).toBe(409);
    expect(((await single.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe("encf_voided");
    const batch = await postJson(
      "/devices/receipts/batch",
      { receipts: [{ xml: late }, { xml: await signedReceipt(mine, lease32(mine).rangeFrom + 6) }] },
      authed(mine.token),
    );
    const results = (
      (await batch.json()) as { results: { status: number; problem?: { errors: { code: string }[] } }[] }
    ).results;
    expect(results.map((r) => [r.status, r.problem?.errors[0]?.code])).toEqual([
      [409, "encf_voided"],
      [200, undefined],
    ]);
    expect((await received(company.rnc, number)).map((r) => r.kind)).toEqual(["anecf"]);
  });

  it("refuses another device's number and one outside every lease; nothing goes to DGII", async () => {
    const { company, mine, other } = await twoTills();
    const theirs = encf("32", lease32(other).rangeFrom);
    const unleased = encf("32", 90_000);
    const { status, body } = await giveUp(mine.token, [
      { tipoeCF: "32", encf: theirs },
      { tipoeCF: "32", encf: unleased },
    ]);
    expect(status).toBe(200);
    expect(body.results.map((r) => [r.encf, r.anulado, r.error?.code])).toEqual([
      [theirs, false, "encf_not_leased"],
      [unleased, false, "encf_not_leased"],
    ]);
    expect(await anecfs(company.rnc)).toHaveLength(0);
    expect(await voidedRanges(company.id)).toEqual([]);
  });

  it("refuses a number holding a receipt; the rest of the list is voided in one ANECF", async () => {
    const { company, mine, other } = await twoTills();
    const from = lease32(mine).rangeFrom;
    const upload = await postJson(
      "/devices/receipts",
      { xml: await signedReceipt(mine, from + 1) },
      authed(mine.token),
    );
    expect(upload.status).toBe(200);
    const used = encf("32", from + 1);
    const givenUp = [encf("32", from + 2), encf("32", from + 4)];
    const { status, body } = await giveUp(mine.token, [
      { tipoeCF: "32", encf: givenUp[0]! },
      { tipoeCF: "32", encf: used },
      { tipoeCF: "32", encf: encf("32", lease32(other).rangeFrom + 1) },
      { tipoeCF: "32", encf: givenUp[1]! },
    ]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.results.map((r) => [r.anulado, r.error?.code])).toEqual([
      [true, undefined],
      [false, "encf_used"],
      [false, "encf_not_leased"],
      [true, undefined],
    ]);
    expect(await anecfs(company.rnc)).toHaveLength(1);
    expect((await voidedRanges(company.id)).map((r) => r.first_number)).toEqual([from + 2, from + 4]);
    // The receipt stands.
    expect((await received(company.rnc, used)).map((r) => r.kind)).toEqual(["rfce"]);
  });

  it("DGII unreachable: 503, nothing voided, and the same list goes through afterwards", async () => {
    const { company, mine } = await twoTills();
    const number = encf("32", lease32(mine).rangeFrom + 7);
    await setFault({ mode: "down", services: ["anulacionrangos"] });
    const down = await giveUp(mine.token, [{ tipoeCF: "32", encf: number }]);
    expect(down.status).toBe(503);
    expect(down.body.code).toBe("dgii_unavailable");
    expect(await voidedRanges(company.id)).toEqual([]);
    await clearFaults();
    const up = await giveUp(mine.token, [{ tipoeCF: "32", encf: number }]);
    expect(up.body.results).toEqual([{ tipoeCF: "32", encf: number, anulado: true, replayed: false }]);
  });

  it("a malformed list is a problem with the pointer of each mistake; a company token is not a device's", async () => {
    const { mine, companyToken } = await twoTills();
    const bad = await giveUp(mine.token, [
      { tipoeCF: "32", encf: "E310000000001" },
      { tipoeCF: "32", encf: "32-1" },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["/numbers/0/encf", "/numbers/1/encf"]);
    expect((await giveUp(companyToken, [{ tipoeCF: "32", encf: "E320000000001" }])).status).toBe(401);
  });
});
