// POST /devices/given-up-numbers: a till proposes voiding (ANECF) the numbers it took from its own
// leases and will never sign; nothing leaves for DGII until an owner or accountant confirms
// (POST /devices/given-up-proposals/confirm). Another device's numbers, numbers outside any lease
// and numbers holding a receipt are refused; a repeat sends nothing twice.
import { ecfToXml, fechaHoraFirma, fromBase64, signEcfXml } from "@ecf/shared";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { admin, authed, companyWithToken } from "./support/accounts.ts";
import { browse, consoleUser } from "./support/console.ts";
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

type Result = {
  tipoeCF: string;
  encf: string;
  anulado: boolean;
  replayed: boolean;
  proposed?: boolean;
  error?: { code: string };
};
async function giveUp(token: string, numbers: { tipoeCF: string; encf: string }[]) {
  const res = await postJson("/devices/given-up-numbers", { numbers }, authed(token));
  return { status: res.status, body: (await res.json()) as { results: Result[] } & Record<string, any> };
}

type Proposal = { id: string; deviceId: string; encf: string };
const proposals = async (companyToken: string) =>
  (
    (await (await call("/devices/given-up-proposals", { headers: authed(companyToken) })).json()) as {
      proposals: Proposal[];
    }
  ).proposals;
async function confirm(companyToken: string, ids: string[]) {
  const res = await postJson("/devices/given-up-proposals/confirm", { ids }, authed(companyToken));
  return {
    status: res.status,
    body: (await res.json()) as { results: (Result & { id: string })[] } & Record<string, any>,
  };
}
/** Everything proposed, confirmed as the company. */
const confirmAll = async (companyToken: string) =>
  confirm(
    companyToken,
    (await proposals(companyToken)).map((p) => p.id),
  );
const proposed = (tipoeCF: string, encf: string) => ({
  tipoeCF,
  encf,
  anulado: false,
  replayed: false,
  proposed: true,
});

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
  it("proposes a number of the device's own lease; only the confirmation sends one ANECF, and the repeat nothing", async () => {
    const { company, companyToken, mine } = await twoTills();
    const number = encf("32", lease32(mine).rangeFrom + 5);
    const first = await giveUp(mine.token, [{ tipoeCF: "32", encf: number }]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.results).toEqual([proposed("32", number)]);
    // Proposed twice (a retried sync): still one proposal, and nothing went to DGII.
    expect((await giveUp(mine.token, [{ tipoeCF: "32", encf: number }])).body.results).toEqual([
      proposed("32", number),
    ]);
    expect(await anecfs(company.rnc)).toHaveLength(0);
    expect(await voidedRanges(company.id)).toEqual([]);
    const pending = await proposals(companyToken);
    expect(pending.map((p) => p.encf)).toEqual([number]);

    const confirmed = await confirm(companyToken, [pending[0]!.id]);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.results).toEqual([
      { id: pending[0]!.id, tipoeCF: "32", encf: number, anulado: true, replayed: false },
    ]);
    expect(await anecfs(company.rnc)).toHaveLength(1);
    expect(await voidedRanges(company.id)).toEqual([
      { tipo_ecf: "32", first_number: lease32(mine).rangeFrom + 5, last_number: lease32(mine).rangeFrom + 5 },
    ]);
    expect(await proposals(companyToken)).toEqual([]);
    // Confirming again sends nothing: the proposal answers as it was decided.
    expect((await confirm(companyToken, [pending[0]!.id])).body.results[0]).toMatchObject({ anulado: true });
    expect(await anecfs(company.rnc)).toHaveLength(1);

    // The till sends the same list again: it learns the number is void; nothing is sent.
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

  it("refuses a number holding a receipt; the rest of the list is voided in one ANECF once confirmed", async () => {
    const { company, companyToken, mine, other } = await twoTills();
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
    expect(body.results.map((r) => [r.proposed ?? false, r.error?.code])).toEqual([
      [true, undefined],
      [false, "encf_used"],
      [false, "encf_not_leased"],
      [true, undefined],
    ]);
    expect(await anecfs(company.rnc)).toHaveLength(0);
    const confirmed = await confirmAll(companyToken);
    expect(confirmed.body.results.map((r) => [r.encf, r.anulado])).toEqual([
      [givenUp[0], true],
      [givenUp[1], true],
    ]);
    expect(await anecfs(company.rnc)).toHaveLength(1);
    expect((await voidedRanges(company.id)).map((r) => r.first_number)).toEqual([from + 2, from + 4]);
    // The receipt stands.
    expect((await received(company.rnc, used)).map((r) => r.kind)).toEqual(["rfce"]);
  });

  it("DGII unreachable at the confirmation: 503, nothing voided, still proposed; confirming again voids it", async () => {
    const { company, companyToken, mine } = await twoTills();
    const number = encf("32", lease32(mine).rangeFrom + 7);
    expect((await giveUp(mine.token, [{ tipoeCF: "32", encf: number }])).body.results).toEqual([
      proposed("32", number),
    ]);
    await setFault({ mode: "down", services: ["anulacionrangos"] });
    const down = await confirmAll(companyToken);
    expect(down.status).toBe(503);
    expect(down.body.code).toBe("dgii_unavailable");
    expect(await voidedRanges(company.id)).toEqual([]);
    expect((await proposals(companyToken)).map((p) => p.encf)).toEqual([number]);
    await clearFaults();
    const up = await confirmAll(companyToken);
    expect(up.body.results).toMatchObject([{ tipoeCF: "32", encf: number, anulado: true, replayed: false }]);
  });

  it("a manager may not confirm; an accountant may", async () => {
    const { company, mine } = await twoTills();
    const number = encf("32", lease32(mine).rangeFrom + 9);
    await giveUp(mine.token, [{ tipoeCF: "32", encf: number }]);
    const manager = await consoleUser(company.id, "manager");
    const accountant = await consoleUser(company.id, "accountant");
    expect((await browse(manager, "/devices/given-up-proposals")).status).toBe(403);
    const listed = (await (await browse(accountant, "/devices/given-up-proposals")).json()) as {
      proposals: Proposal[];
    };
    const ids = listed.proposals.map((p) => p.id);
    const refused = await browse(manager, "/devices/given-up-proposals/confirm", { method: "POST", body: { ids } });
    expect(refused.status).toBe(403);
    expect(await anecfs(company.rnc)).toHaveLength(0);
    const done = await browse(accountant, "/devices/given-up-proposals/confirm", { method: "POST", body: { ids } });
    expect(done.status).toBe(200);
    expect(await anecfs(company.rnc)).toHaveLength(1);
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
