import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { database } from "../src/db/client.ts";
import { dgiiClientFor, signerFor } from "../src/dgii/for-company.ts";
import { admin } from "./support/accounts.ts";
import { clearFaults, issue, issueRequest, issuer, received, sandboxUrl, setFault } from "./support/issuing.ts";
import { issuerSql, nextNumber, receiptRow, runRetryAlarms } from "./support/ledger.ts";
import { until } from "./support/until.ts";

const setProcessingMs = (processingMs: number) =>
  fetch(`${sandboxUrl()}/__sandbox/config`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ processingMs }),
  });

afterEach(async () => {
  await clearFaults();
  await setProcessingMs(100); // the global setup's value
});

type Json = Record<string, any>;
const requestsTo = async (service: string) =>
  (await (await fetch(`${sandboxUrl()}/__sandbox/requests?service=${service}`)).json()) as {
    status: number | null;
    fault: string | null;
  }[];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the issuer's retry alarms (each time past the back-off of the last) until `done`. */
async function alarmsUntil(companyId: string, done: () => Promise<boolean>) {
  await until(done, () => runRetryAlarms(companyId), { pauseMs: 150 });
}

describe("a failed send while the status service says DGII is up", () => {
  it("is contingency; recovery finds DGII's track id with consultatrackids and never sends again", async () => {
    const { company, token } = await issuer();
    // Reception answers after the client's timeout (DGII_TIMEOUT_MS is 6 s in tests), but does receive it.
    await setFault({ mode: "slow", delayMs: 6500, services: ["recepcion"] });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status, JSON.stringify(body)).toBe(503);
    expect(body).toMatchObject({ estado: "Contingencia", codigo: "-1", trackId: null });
    expect(body.mensajes[0].valor).toMatch(/timed out/);
    expect(await receiptRow(company.id, body.encf)).toMatchObject({
      status: "contingency",
      sendAttempts: 1,
      trackId: null,
    });
    await clearFaults();

    // DGII got it after all: it is listed once it has finished the slow request.
    let listed: { trackId: string | null }[] = [];
    await until(
      async () => (listed = (await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).length > 0,
    );
    expect(listed).toHaveLength(1);
    const before = (await requestsTo("consultatrackids")).length;

    await alarmsUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    expect(await receiptRow(company.id, body.encf)).toMatchObject({
      status: "accepted",
      sendAttempts: 1,
      trackId: listed[0]!.trackId,
    });
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(1);
    expect((await requestsTo("consultatrackids")).length).toBeGreaterThan(before);
  });
});

describe("a send that timed out may still land at DGII", () => {
  it("so an empty consultatrackids right after it does not lead to a second send", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "slow", delayMs: 7000, services: ["recepcion"] });
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status).toBe(503);
    // Reception is quick again, but DGII has not recorded the first copy yet (its delay still runs).
    await clearFaults();
    await runRetryAlarms(company.id);
    expect(await receiptRow(company.id, body.encf)).toMatchObject({
      status: "contingency",
      sendAttempts: 1,
      trackId: null,
    });

    await until(async () => (await received(company.rnc, body.encf)).length > 0);
    await alarmsUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    expect((await receiptRow(company.id, body.encf))?.status).toBe("accepted");
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(1);
  });
});

describe("an RFCE send that timed out may still land at DGII", () => {
  it("so a consultaestado that does not find it right after does not lead to a second send", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "slow", delayMs: 7000, services: ["recepcionfc"] });
    const { status, body } = await issue(token, issueRequest("32"));
    expect(status).toBe(503);
    // Reception is quick again, but DGII has not recorded the first copy yet (its delay still runs).
    await clearFaults();
    const asked = (await requestsTo("consultaestado")).length;
    await runRetryAlarms(company.id);
    expect((await requestsTo("consultaestado")).length).toBeGreaterThan(asked);
    expect(await receiptRow(company.id, body.encf)).toMatchObject({
      dgiiPath: "rfce",
      status: "contingency",
      sendAttempts: 1,
    });

    await until(async () => (await received(company.rnc, body.encf)).length > 0);
    await alarmsUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    expect(await receiptRow(company.id, body.encf)).toMatchObject({ status: "accepted", sendAttempts: 1 });
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "rfce")).toHaveLength(1);
  });
});

describe("an RFCE that may have reached DGII", () => {
  it("is recovered through consultaestado after sendAttempts > 0, without a second send", async () => {
    const { company, token } = await issuer();
    await setFault({ mode: "slow", delayMs: 6500, services: ["recepcionfc"] });
    const { status, body } = await issue(token, issueRequest("32"));
    expect(status, JSON.stringify(body)).toBe(503);
    expect(await receiptRow(company.id, body.encf)).toMatchObject({
      dgiiPath: "rfce",
      status: "contingency",
      sendAttempts: 1,
    });
    await clearFaults();
    await until(async () => (await received(company.rnc, body.encf)).some((r) => r.kind === "rfce"));
    const before = (await requestsTo("consultaestado")).length;

    await alarmsUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    expect(await receiptRow(company.id, body.encf)).toMatchObject({ status: "accepted", sendAttempts: 1 });
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "rfce")).toHaveLength(1);
    expect((await requestsTo("consultaestado")).length).toBeGreaterThan(before);
  });
});

describe("client-supplied e-NCF refused before anything is signed", () => {
  async function nothingHappened(company: { id: string; rnc: string }, encf: string, next: number) {
    expect(await receiptRow(company.id, encf)).toBeUndefined();
    expect((await env.ARCHIVE.list({ prefix: `${company.rnc}/` })).objects).toEqual([]);
    expect(await nextNumber(company.id, "31")).toBe(next);
    expect(await issuerSql(company.id, "SELECT COALESCE(SUM(invoices), 0) AS n FROM usage_counters")).toEqual([
      { n: 0 },
    ]);
    expect(await received(company.rnc)).toEqual([]);
  }

  it("outside the authorised range: 422 encf_out_of_range", async () => {
    const { company, token } = await issuer();
    const { status, body } = await issue(
      token,
      issueRequest("31", {}, (d) => (d.Encabezado.IdDoc.eNCF = "E310000100001")),
    );
    expect(status, JSON.stringify(body)).toBe(422);
    expect(body.errors).toEqual([
      expect.objectContaining({ path: "/Encabezado/IdDoc/eNCF", code: "encf_out_of_range" }),
    ]);
    await nothingHappened(company, "E310000100001", 1);
  });

  it("in an expired range: 422 sequence_expired", async () => {
    const { company, token } = await issuer();
    await admin("PUT", `/admin/companies/${company.id}/sequences/31`, {
      rangeFrom: 1,
      rangeTo: 1000,
      expiresOn: "2021-12-31",
    });
    const { status, body } = await issue(
      token,
      issueRequest("31", {}, (d) => (d.Encabezado.IdDoc.eNCF = "E310000000007")),
    );
    expect(status, JSON.stringify(body)).toBe(422);
    expect(body.errors.map((e: Json) => e.code)).toContain("sequence_expired");
    await nothingHappened(company, "E310000000007", 1);
  });
});

describe("En Proceso beyond the request's polling", () => {
  it("answers 202 and the retry alarm finishes it", async () => {
    const { company, token } = await issuer();
    // Longer than the request polls (200 + 1000 + 4000 ms).
    await setProcessingMs(12_000);
    const { status, body } = await issue(token, issueRequest("31"));
    expect(status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ estado: "En Proceso", codigo: "3" });
    expect(body.trackId).toEqual(expect.any(String));
    const row = (await receiptRow(company.id, body.encf))!;
    expect(row.status).toBe("in_process");

    // Still in process at DGII: the alarm asks once and leaves it for later.
    await runRetryAlarms(company.id);
    expect(await receiptRow(company.id, body.encf)).toMatchObject({ status: "in_process", sendAttempts: 1 });

    await alarmsUntil(company.id, async () => (await receiptRow(company.id, body.encf))?.status === "accepted");
    expect(await receiptRow(company.id, body.encf)).toMatchObject({
      status: "accepted",
      trackId: body.trackId,
      sendAttempts: 1,
    });
    expect((await received(company.rnc, body.encf)).filter((r) => r.kind === "ecf")).toHaveLength(1);
  });
});

describe("DGII tokens", () => {
  async function clientsFor(serials: string[], environments: ("testecf" | "certecf")[]) {
    const { company } = await issuer();
    const owner = (await database(env.DB).query.companies.findFirst({ where: (c, { eq }) => eq(c.id, company.id) }))!;
    const signer = await signerFor(env, owner);
    return serials.flatMap((serial) =>
      environments.map((environment) =>
        dgiiClientFor(env, { ...owner, dgiiEnvironment: environment, certificateSerial: serial }, signer),
      ),
    );
  }
  // The sandbox files seeds under the certificate holder's id, shared by every test issuer.
  const seeds = async (environment: string) =>
    (await received("131880681")).filter(
      (r) => r.kind === "semilla" && (r as unknown as { env: string }).env === environment,
    ).length;

  it("one token per environment and per certificate, each reused", async () => {
    const serial = crypto.randomUUID();
    const [testA, certA, testB] = await clientsFor([`${serial}-a`, `${serial}-b`], ["testecf", "certecf"]).then(
      (c) => [c[0]!, c[1]!, c[2]!] as const,
    );
    const before = { testecf: await seeds("testecf"), certecf: await seeds("certecf") };
    const tokens = [await testA.token(), await certA.token(), await testB.token()];
    expect(new Set(tokens).size).toBe(3);
    expect([await testA.token(), await certA.token(), await testB.token()]).toEqual(tokens);
    expect(await seeds("testecf")).toBe(before.testecf + 2);
    expect(await seeds("certecf")).toBe(before.certecf + 1);
    // Each token works in its own environment.
    expect(await certA.consultaTrackIds("E310000000001")).toEqual([]);
    expect(await testB.consultaTrackIds("E310000000001")).toEqual([]);
  });

  it("authenticates again once DGII's expira is near", async () => {
    // The client renews a minute before `expira`: a 63-second token is reusable for about 3 s.
    await fetch(`${sandboxUrl()}/__sandbox/config`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tokenTtlMs: 63_000 }),
    });
    try {
      const [client] = await clientsFor([crypto.randomUUID()], ["testecf"]);
      const before = await seeds("testecf");
      const first = await client!.token();
      expect(await client!.token()).toBe(first);
      expect(await seeds("testecf")).toBe(before + 1);
      await sleep(3500);
      const renewed = await client!.token();
      expect(renewed).not.toBe(first);
      expect(await seeds("testecf")).toBe(before + 2);
      expect(await client!.consultaTrackIds("E310000000001")).toEqual([]);
    } finally {
      await fetch(`${sandboxUrl()}/__sandbox/config`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ tokenTtlMs: 3_600_000 }),
      });
    }
  });
});
