import { env } from "cloudflare:workers";
import { ecfToXml, fechaHoraFirma, fromBase64, importSigningKey, readPkcs12, signEcfXml } from "@ecf/shared";
import { describe, expect, inject, it } from "vitest";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { call, postJson } from "./support/http.ts";
import { admin, authed, companyWithToken } from "./support/accounts.ts";
import { clearFaults, received, registerSigner, setFault } from "./support/issuing.ts";
import { allocate, auditRows, everyMonthSql, issuerSql } from "./support/ledger.ts";
import { eq } from "drizzle-orm";
import { database } from "../src/db/client.ts";
import { companies } from "../src/db/tables.ts";
import { devices } from "../src/db/devices-tables.ts";
import { acceptDeviceReceiptBatch } from "../src/devices/batch-uploads.ts";
import { until } from "./support/until.ts";
import { openedPkcs8, openMaterial, tillKeys, type WrappedMaterial } from "./support/till-keys.ts";

const fixtures = inject("certificates");
const bytes = (b64: string) => fromBase64(b64)!;

/** Uploads the .p12; the sandbox takes the issuer's signature with either of its certificates. */
async function uploadCertificate(company: { id: string; rnc: string }, p12 = fixtures.forgeP12) {
  const companyId = company.id;
  const form = new FormData();
  form.set("file", new File([new Uint8Array(bytes(p12))], "firma.p12"));
  form.set("password", fixtures.password);
  const res = await call(`/admin/companies/${companyId}/certificate`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    body: form,
  });
  expect(res.status).toBe(200);
  await registerSigner(company.rnc, [fixtures.certificatePem, fixtures.renewedCertificatePem]);
}

/** A company with a certificate and ranges for the till's types, and a device ready to pair. */
async function setup(
  ranges: Record<string, [number, number]> = { "32": [1, 100_000], "31": [1, 100_000], "34": [1, 1000] },
) {
  const { company, token } = await companyWithToken();
  await uploadCertificate(company);
  for (const [tipo, [from, to]] of Object.entries(ranges)) {
    await admin("PUT", `/admin/companies/${company.id}/sequences/${tipo}`, {
      rangeFrom: from,
      rangeTo: to,
      expiresOn: "2099-12-31",
    });
  }
  const created = await admin<{ id: string; pairingCode: string; pairingExpiresAt: string }>(
    "POST",
    `/admin/companies/${company.id}/devices`,
    { name: "Caja 1" },
  );
  return { company, token, created };
}

interface Paired {
  token: string;
  device: { id: string; status: string };
  company: { registryNumber: string };
  signing: WrappedMaterial;
  leases: { tipoeCF: string; rangeFrom: number; rangeTo: number }[];
}

/** One key pair for every till of this file: the signing key travels wrapped to it. */
const TILL = await tillKeys();

async function pair(code: string) {
  return postJson("/devices/pair", { pairingCode: code, publicKey: TILL.publicKey });
}

async function paired(ranges?: Record<string, [number, number]>) {
  const s = await setup(ranges);
  const res = await pair(s.created.pairingCode);
  expect(res.status).toBe(200);
  return { ...s, paired: (await res.json()) as Paired };
}

const deviceCall = (token: string, path: string, body?: unknown) =>
  body === undefined ? call(path, { headers: authed(token) }) : postJson(path, body, authed(token));

describe("the signing key leaves the service only against a one-time code", () => {
  const errorCode = async (res: Response) => ((await res.json()) as { errors?: { code: string }[] }).errors?.[0]?.code;
  it("signing-material refuses the device token alone and any code but a fresh one of this device, used once", async () => {
    const { token, paired: p } = await paired();
    const missing = await deviceCall(p.token, "/devices/signing-material", {});
    expect(missing.status).toBe(403);
    expect(JSON.stringify(await missing.json())).not.toContain("wrappedPkcs8");
    const guessed = await deviceCall(p.token, "/devices/signing-material", { pairingCode: "ABCD-EFGH" });
    expect(guessed.status).toBe(403);
    expect(await errorCode(guessed)).toBe("pairing_code_invalid");

    const other = await paired();
    const otherCode = (
      (await (
        await call(`/tills/${other.paired.device.id}/pairing-code`, { method: "POST", headers: authed(other.token) })
      ).json()) as { pairingCode: string }
    ).pairingCode;
    expect((await deviceCall(p.token, "/devices/signing-material", { pairingCode: otherCode })).status).toBe(403);
    // Another issuer cannot make a code for this device.
    expect(
      (await call(`/tills/${p.device.id}/pairing-code`, { method: "POST", headers: authed(other.token) })).status,
    ).toBe(404);

    const res = await call(`/tills/${p.device.id}/pairing-code`, { method: "POST", headers: authed(token) });
    const { pairingCode } = (await res.json()) as { pairingCode: string };
    // A re-key code pairs no other till.
    expect((await pair(pairingCode)).status).toBe(401);
    const material = await deviceCall(p.token, "/devices/signing-material", { pairingCode });
    expect(material.status).toBe(200);
    expect(await openedPkcs8(TILL, (await material.json()) as WrappedMaterial)).toBe(fixtures.pkcs8);
    const again = await deviceCall(p.token, "/devices/signing-material", { pairingCode });
    expect(again.status).toBe(403);
  });

  it("an expired re-key code gives nothing", async () => {
    const { token, paired: p } = await paired();
    const { pairingCode } = (await (
      await call(`/tills/${p.device.id}/pairing-code`, { method: "POST", headers: authed(token) })
    ).json()) as { pairingCode: string };
    await env.DB.prepare("UPDATE devices SET pairing_expires_at = ?1 WHERE id = ?2")
      .bind(new Date(Date.now() - 1000).toISOString(), p.device.id)
      .run();
    expect((await deviceCall(p.token, "/devices/signing-material", { pairingCode })).status).toBe(403);
  });
});

describe("device pairing", () => {
  it("gives a short human-typable code that pairs once, provisioning token, key, certificate and leases", async () => {
    const { company, created } = await setup();
    expect(created.pairingCode).toMatch(/^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    // Typed in lower case without the dash: still the same code.
    const res = await pair(created.pairingCode.replace("-", "").toLowerCase());
    expect(res.status).toBe(200);
    const body = (await res.json()) as Paired;
    expect(body.token).toMatch(/^dvt_/);
    expect(body.device).toMatchObject({ id: created.id, status: "paired" });
    expect(await openedPkcs8(TILL, body.signing)).toBe(fixtures.pkcs8);
    expect(body.signing.certificate).toBe(fixtures.certificateDer);
    expect(body.leases.map((l) => [l.tipoeCF, l.rangeTo - l.rangeFrom + 1])).toEqual([
      ["32", 200],
      ["31", 200],
      ["34", 200],
    ]);
    const me = await deviceCall(body.token, "/devices/me");
    expect(me.status).toBe(200);
    expect(((await me.json()) as { company: { id: string } }).company.id).toBe(company.id);

    const again = await pair(created.pairingCode);
    expect(again.status).toBe(401);
  });

  it("two concurrent pairings with one code: exactly one wins", async () => {
    const { created } = await setup();
    const results = await Promise.all([
      pair(created.pairingCode),
      pair(created.pairingCode),
      pair(created.pairingCode),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
  });

  it("an expired code does not pair", async () => {
    const { created } = await setup();
    await env.DB.prepare("UPDATE devices SET pairing_expires_at = ?2 WHERE id = ?1")
      .bind(created.id, new Date(Date.now() - 1000).toISOString())
      .run();
    const res = await pair(created.pairingCode);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/expired/);
  });

  it.each([
    ["unknown code", "ABCD-EFGH"],
    ["empty", ""],
  ])("refuses an %s", async (_label, code) => {
    expect([400, 401]).toContain((await pair(code)).status);
  });

  it("the company itself creates devices with its own token, and lists them", async () => {
    const { token } = await setup();
    const res = await postJson("/devices", { name: "Caja 2" }, authed(token));
    expect(res.status).toBe(201);
    const list = (await (await call("/devices", { headers: authed(token) })).json()) as {
      devices: { name: string; status: string }[];
    };
    expect(list.devices.map((d) => [d.name, d.status])).toEqual([
      ["Caja 1", "waiting_pairing"],
      ["Caja 2", "waiting_pairing"],
    ]);
  });

  it("refuses to pair a till for an issuer without a certificate (and the code stays unused for nothing)", async () => {
    const { company } = await companyWithToken();
    const created = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
      name: "Caja",
    });
    expect((await pair(created.pairingCode)).status).toBe(422);
  });
});

describe("device revocation", () => {
  it.each([
    ["the company", false],
    ["the administrator", true],
  ])("revoked by %s, the token fails at once and the device is told to delete its key", async (_label, byAdmin) => {
    const { token, created, paired: p } = await paired();
    expect((await deviceCall(p.token, "/devices/me")).status).toBe(200);
    const res = byAdmin
      ? await call(`/admin/devices/${created.id}/revoke`, {
          method: "POST",
          headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
        })
      : await call(`/tills/${created.id}/revoke`, { method: "POST", headers: authed(token) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("revoked");
    for (const [path, body] of [
      ["/devices/me", undefined],
      ["/devices/leases", { tipoeCF: "32", size: 10 }],
    ] as const) {
      const refused = await deviceCall(p.token, path, body);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: "unauthorized", deviceRevoked: true });
    }
  });

  it("another company cannot revoke my device", async () => {
    const { created } = await setup();
    const other = await companyWithToken();
    expect((await call(`/tills/${created.id}/revoke`, { method: "POST", headers: authed(other.token) })).status).toBe(
      404,
    );
  });
});

const overlaps = (ranges: [number, number][]) => {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  return sorted.some((r, i) => i > 0 && r[0] <= sorted[i - 1]![1]);
};

describe("e-NCF leases", () => {
  it("concurrent leases of several devices never overlap each other nor the API's own allocations", async () => {
    const { company, paired: p } = await paired();
    const second = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
      name: "Caja 2",
    });
    const p2 = (await (await pair(second.pairingCode)).json()) as Paired;
    const leaseCalls = Array.from({ length: 12 }, (_, i) =>
      deviceCall(i % 2 ? p.token : p2.token, "/devices/leases", { tipoeCF: "32", size: 50 + i }),
    );
    const apiCalls = Array.from({ length: 12 }, () => allocate(company.id, "32"));
    const [leases, api] = await Promise.all([Promise.all(leaseCalls), Promise.all(apiCalls)]);
    const ranges: [number, number][] = [...p.leases, ...p2.leases]
      .filter((l) => l.tipoeCF === "32")
      .map((l) => [l.rangeFrom, l.rangeTo]);
    for (const res of leases) {
      expect(res.status).toBe(201);
      const l = (await res.json()) as { rangeFrom: number; rangeTo: number };
      ranges.push([l.rangeFrom, l.rangeTo]);
    }
    for (const a of api) ranges.push([a.number, a.number]);
    expect(overlaps(ranges)).toBe(false);
    const covered = ranges.reduce((s, [a, b]) => s + b - a + 1, 0);
    // Every number from 1 up is handed out exactly once: no gaps either.
    expect(Math.max(...ranges.map((r) => r[1]))).toBe(covered);
  });

  it("near the end of the range a lease gets its share of what is left; the last numbers stay the API's", async () => {
    const { paired: p } = await paired({ "32": [1, 230] });
    // A quarter of the 230 numbers left (lease-caps.ts), not the 200 asked for.
    expect(p.leases).toEqual([expect.objectContaining({ tipoeCF: "32", rangeFrom: 1, rangeTo: 57 })]);
    const rest = await deviceCall(p.token, "/devices/leases", { tipoeCF: "32", size: 200 });
    expect(await rest.json()).toMatchObject({ rangeFrom: 58, rangeTo: 100, lastEncf: "E320000000100" });
    let last: Response | undefined;
    for (let i = 0; i < 30; i++) {
      last = await deviceCall(p.token, "/devices/leases", { tipoeCF: "32", size: 200 });
      if (last.status !== 201) break;
    }
    expect(last!.status).toBe(422);
    expect(((await last!.json()) as { errors: { code: string }[] }).errors[0]?.code).toMatch(
      /^lease_(share|cap)_reached$/,
    );
  });

  it.each([
    ["size above the maximum", { tipoeCF: "32", size: 5000 }],
    ["a type a till does not issue", { tipoeCF: "41", size: 10 }],
  ])("refuses %s", async (_label, body) => {
    const { paired: p } = await paired();
    expect((await deviceCall(p.token, "/devices/leases", body)).status).toBe(400);
  });
});

/** Signed now (FechaHoraFirma is the signing time) unless `signedAt` says otherwise. */
async function signedReceipt(
  p: Paired,
  sequence: number,
  options: { key?: CryptoKey; certificate?: Uint8Array; tipo?: "32" | "31"; signedAt?: Date } = {},
) {
  const doc = makeEcf(options.tipo ?? "32", {
    sequence,
    lines: 2,
    fechaHoraFirma: fechaHoraFirma(options.signedAt ?? new Date()),
  }) as {
    Encabezado: { Emisor: Record<string, unknown> };
  };
  doc.Encabezado.Emisor.RNCEmisor = p.company.registryNumber;
  const key = options.key ?? (await openMaterial(TILL, p.signing));
  return signEcfXml(ecfToXml(doc), key, options.certificate ?? bytes(p.signing.certificate));
}

describe("POST /devices/receipts", () => {
  it("accepts a receipt signed on the device inside its lease, sends it to DGII once, and replays the first answer on retry", async () => {
    const { company, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const xml = await signedReceipt(p, lease.rangeFrom + 3);
    const first = await deviceCall(p.token, "/devices/receipts", { xml });
    expect(first.status).toBe(200);
    const answer = (await first.json()) as {
      encf: string;
      estado: string;
      codigo: string;
      codigoSeguridad: string;
      urlTimbre: string;
    };
    expect(answer, JSON.stringify(answer)).toMatchObject({ estado: "Aceptado", codigo: "1" });
    expect(answer.encf).toBe(`E32${String(lease.rangeFrom + 3).padStart(10, "0")}`);
    expect(answer.codigoSeguridad).toBe(/<SignatureValue>(.{6})/.exec(xml)![1]);
    expect(answer.urlTimbre).toContain(`ENCF=${answer.encf}`);

    const retry = await deviceCall(p.token, "/devices/receipts", { xml });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.json()).toEqual(answer);
    // The retry is recognised by the receipt itself (same e-NCF, same signed bytes): one receipt in the ledger.
    expect(await everyMonthSql(company.id, "SELECT encf, source FROM receipts")).toEqual([
      { encf: answer.encf, source: "device" },
    ]);
    expect(await issuerSql(company.id, "SELECT SUM(invoices) AS n FROM usage_counters")).toEqual([{ n: 1 }]);
    const archived = await env.ARCHIVE.get(`${company.rnc}/2025/04/${answer.encf}.xml`);
    expect(await archived!.text()).toBe(xml);
    // DGII saw it once (as the RFCE summary of a consumer invoice), retry or not.
    expect((await received(company.rnc, answer.encf)).map((r) => r.kind)).toEqual(["rfce"]);
    const state = await deviceCall(p.token, `/devices/receipts/${answer.encf}`);
    expect(await state.json()).toMatchObject({ estado: "Aceptado", encf: answer.encf });
    expect((await deviceCall(p.token, "/devices/receipts/E329999999999")).status).toBe(404);
  });

  it("a different document under an e-NCF already received is a conflict, never a second receipt", async () => {
    const { paired: p } = await paired();
    const n = p.leases.find((l) => l.tipoeCF === "32")!.rangeFrom;
    expect((await deviceCall(p.token, "/devices/receipts", { xml: await signedReceipt(p, n) })).status).toBe(200);
    const other = (await signedReceipt(p, n)).replace(
      "<NombreItem>Producto 1</NombreItem>",
      "<NombreItem>Producto X</NombreItem>",
    );
    // Re-sign the altered document so only the content differs.
    const resigned = await signEcfXml(
      other.replace(/<Signature .*<\/Signature>/, ""),
      await openMaterial(TILL, p.signing),
      bytes(p.signing.certificate),
    );
    const res = await deviceCall(p.token, "/devices/receipts", { xml: resigned });
    expect(res.status).toBe(409);
  });

  it.each([
    ["a tampered document (bad signature)", "signature_digest_mismatch"],
    ["a number outside the device's leases", "encf_not_leased"],
    ["another device's number", "encf_not_leased"],
    ["a certificate that is not the company's", "certificate_not_company"],
  ])("refuses %s", async (label, code) => {
    const { company, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    let xml: string;
    if (label.startsWith("a tampered")) {
      xml = (await signedReceipt(p, lease.rangeFrom)).replace(
        "<NombreItem>Producto 1</NombreItem>",
        "<NombreItem>Producto 9</NombreItem>",
      );
    } else if (label.startsWith("a number outside")) {
      xml = await signedReceipt(p, lease.rangeTo + 5000);
    } else if (label.startsWith("another device")) {
      const second = await admin<{ pairingCode: string }>("POST", `/admin/companies/${company.id}/devices`, {
        name: "Caja 2",
      });
      const p2 = (await (await pair(second.pairingCode)).json()) as Paired;
      xml = await signedReceipt(p, p2.leases.find((l) => l.tipoeCF === "32")!.rangeFrom);
    } else {
      // A real certificate of someone else (the expired fixture's identity), with its own key.
      const foreign = readPkcs12(bytes(fixtures.expiredP12), fixtures.password);
      xml = await signedReceipt(p, lease.rangeFrom, {
        key: await importSigningKey(foreign.pkcs8),
        certificate: foreign.certificate,
      });
    }
    const res = await deviceCall(p.token, "/devices/receipts", { xml });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe(code);
  });

  it("a receipt DGII rejects comes back with DGII's reason, and a retry gets the same answer", async () => {
    const { paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "31")!;
    const xml = await signedReceipt(p, lease.rangeFrom, { tipo: "31" });
    await setFault({ mode: "reject", count: 1, code: 615, message: "Rechazo 615 de prueba" });
    try {
      const res = await deviceCall(p.token, "/devices/receipts", { xml });
      const answer = (await res.json()) as { estado: string; mensajes: { codigo: string }[] };
      expect(answer, JSON.stringify(answer)).toMatchObject({ estado: "Rechazado", codigo: "2" });
      expect(answer.mensajes).toContainEqual(expect.objectContaining({ codigo: "615" }));
      expect(await (await deviceCall(p.token, "/devices/receipts", { xml })).json()).toEqual(answer);
    } finally {
      await clearFaults();
    }
  });

  it("needs a device token: a company token is not one", async () => {
    const { token } = await setup();
    expect((await deviceCall(token, "/devices/receipts", { xml: "<ECF/>" })).status).toBe(401);
  });
});

interface BatchResult {
  encf: string | null;
  status: number;
  replayed: boolean;
  answer?: { encf: string; estado: string; codigo: string; trackId: string | null; codigoSeguridad: string };
  problem?: { code: string; status: number; errors: { path: string; code: string }[] };
}

const uploadBatch = async (token: string, xmls: string[]) => {
  const res = await deviceCall(token, "/devices/receipts/batch", { receipts: xmls.map((xml) => ({ xml })) });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { results: BatchResult[] }).results;
};

/** Waits until the ledger's own alarms (nothing run by hand) have every receipt judged by DGII. */
async function transmittedInBackground(companyId: string, count: number) {
  const allAccepted = async () => {
    const rows = await everyMonthSql(companyId, "SELECT status FROM receipts");
    return rows.length === count && rows.every((r) => r.status === "accepted");
  };
  if (await until(allAccepted, undefined, { withinMs: 120_000, pauseMs: 250 })) return;
  throw new Error(
    `not all ${count} receipts accepted: ${JSON.stringify(await everyMonthSql(companyId, "SELECT encf, status, retries FROM receipts"))}`,
  );
}

describe("POST /devices/receipts/batch", () => {
  it("records every receipt in order, answers each En Proceso, and the ledger's alarm sends each to DGII once", async () => {
    const { company, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const xmls = await Promise.all(Array.from({ length: 12 }, (_, i) => signedReceipt(p, lease.rangeFrom + i)));
    const encfs = xmls.map((xml) => /<eNCF>(E\d{12})<\/eNCF>/.exec(xml)![1]!);
    const results = await uploadBatch(p.token, xmls);
    expect(results.map((r) => [r.encf, r.status, r.replayed])).toEqual(encfs.map((e) => [e, 200, false]));
    for (const [i, r] of results.entries()) {
      // Recorded, not yet with DGII: the till shows En Proceso and asks again later.
      expect(r.answer).toMatchObject({
        encf: encfs[i],
        estado: "En Proceso",
        codigo: "3",
        trackId: null,
        codigoSeguridad: /<SignatureValue>(.{6})/.exec(xmls[i]!)![1],
      });
    }
    // Recorded in the order sent, archived, counted once each against the quota.
    expect(
      (await everyMonthSql(company.id, "SELECT encf, source FROM receipts ORDER BY rowid")).map((r) => r.encf),
    ).toEqual(encfs);
    expect(await issuerSql(company.id, "SELECT SUM(invoices) AS n FROM usage_counters")).toEqual([{ n: 12 }]);
    expect(await (await env.ARCHIVE.get(`${company.rnc}/2025/04/${encfs[5]}.xml`))!.text()).toBe(xmls[5]);

    await transmittedInBackground(company.id, 12);
    // DGII heard of each once (the alarm sends a backlog side by side, so in no fixed order).
    expect((await received(company.rnc)).map((r) => r.encf).sort()).toEqual([...encfs].sort());
    // The state query answers many at once, in the order asked; an unknown e-NCF is left out.
    const states = await deviceCall(
      p.token,
      `/devices/receipts?encf=${[encfs[3], "E329999999999", encfs[0]].join(",")}`,
    );
    expect(states.status).toBe(200);
    expect(((await states.json()) as { receipts: { encf: string; estado: string }[] }).receipts).toEqual([
      expect.objectContaining({ encf: encfs[3], estado: "Aceptado" }),
      expect.objectContaining({ encf: encfs[0], estado: "Aceptado" }),
    ]);
  });

  it("the alarm sends a credit note only after the receipt it modifies, when both came in one batch", async () => {
    const { company, paired: p } = await paired();
    const lease = (tipo: string) => p.leases.find((l) => l.tipoeCF === tipo)!.rangeFrom;
    const receipts = await Promise.all(Array.from({ length: 8 }, (_, i) => signedReceipt(p, lease("32") + i)));
    const modified = /<eNCF>(E\d{12})/.exec(receipts[7]!)![1]!;
    const note = makeEcf("34", { sequence: lease("34"), lines: 1, fechaHoraFirma: fechaHoraFirma(new Date()) }) as {
      Encabezado: { Emisor: Record<string, unknown> };
      InformacionReferencia: Record<string, unknown>;
    };
    note.Encabezado.Emisor.RNCEmisor = p.company.registryNumber;
    note.InformacionReferencia.NCFModificado = modified;
    const signedNote = await signEcfXml(
      ecfToXml(note),
      await openMaterial(TILL, p.signing),
      bytes(p.signing.certificate),
    );
    const results = await uploadBatch(p.token, [...receipts, signedNote]);
    expect(results.map((r) => r.status)).toEqual(Array(9).fill(200));
    const noteEncf = results[8]!.encf!;
    await until(async () => (await received(company.rnc)).length >= 9, undefined, { pauseMs: 250 });
    const order = (await received(company.rnc)).map((r) => r.encf);
    expect(order).toHaveLength(9);
    expect(order.indexOf(noteEncf)).toBeGreaterThan(order.indexOf(modified));
  });

  it("a retried batch records nothing twice: every receipt is a replay, and DGII hears each once", async () => {
    const { company, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const xmls = await Promise.all(Array.from({ length: 5 }, (_, i) => signedReceipt(p, lease.rangeFrom + i)));
    const first = await uploadBatch(p.token, xmls);
    // The response was lost: the till sends the same batch again, at once and after DGII judged it.
    const again = await uploadBatch(p.token, xmls);
    expect(again.map((r) => [r.encf, r.status, r.replayed])).toEqual(first.map((r) => [r.encf, 200, true]));
    await transmittedInBackground(company.id, 5);
    const later = await uploadBatch(p.token, xmls);
    expect(later.map((r) => [r.replayed, r.answer?.estado])).toEqual(xmls.map(() => [true, "Aceptado"]));
    // The single route recognises them too.
    const single = await deviceCall(p.token, "/devices/receipts", { xml: xmls[2] });
    expect(single.headers.get("Idempotent-Replayed")).toBe("true");
    // Summed over the months: the key's handover at pairing was audited in the current month's object.
    const perMonth = await everyMonthSql(company.id, "SELECT COUNT(*) AS n FROM receipts");
    expect(perMonth.reduce((sum, row) => sum + Number(row.n), 0)).toBe(5);
    expect(await issuerSql(company.id, "SELECT SUM(invoices) AS n FROM usage_counters")).toEqual([{ n: 5 }]);
    for (const r of first) expect((await received(company.rnc, r.encf!)).length).toBe(1);
  });

  it("a bad receipt fails alone, with its path into the batch; the others are recorded in order", async () => {
    const { company, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const good = await Promise.all([0, 1, 2, 3].map((i) => signedReceipt(p, lease.rangeFrom + i)));
    const taken = good[0]!;
    await uploadBatch(p.token, [taken]);
    // The same e-NCF as `taken`, another document (signed again after the change).
    const altered = taken
      .replace(/<Signature .*<\/Signature>/, "")
      .replace("<NombreItem>Producto 1</NombreItem>", "<NombreItem>Producto X</NombreItem>");
    const conflicting = await signEcfXml(altered, await openMaterial(TILL, p.signing), bytes(p.signing.certificate));
    const tampered = (await signedReceipt(p, lease.rangeFrom + 10)).replace(
      "<NombreItem>Producto 1</NombreItem>",
      "<NombreItem>Producto 9</NombreItem>",
    );
    const notLeased = await signedReceipt(p, lease.rangeTo + 50);
    const batch = [good[1]!, tampered, good[2]!, notLeased, "<ECF>no</ECF>", conflicting, good[3]!];
    const results = await uploadBatch(p.token, batch);
    expect(
      results.map((r) => [r.status, r.problem?.errors[0]?.path ?? null, r.problem?.errors[0]?.code ?? null]),
    ).toEqual([
      [200, null, null],
      [422, "/receipts/1/xml", "signature_digest_mismatch"],
      [200, null, null],
      [422, "/receipts/3/xml", "encf_not_leased"],
      [422, "/receipts/4/xml", "incomplete"],
      [409, "/receipts/5/xml", "encf_already_used"],
      [200, null, null],
    ]);
    expect(results[1]!.encf).toBe(`E32${String(lease.rangeFrom + 10).padStart(10, "0")}`);
    expect(results[5]).toMatchObject({
      encf: /<eNCF>(E\d{12})/.exec(taken)![1],
      problem: { code: "conflict", status: 409 },
    });
    const recorded = (await everyMonthSql(company.id, "SELECT encf FROM receipts ORDER BY rowid")).map((r) => r.encf);
    expect(recorded).toEqual([taken, good[1], good[2], good[3]].map((x) => /<eNCF>(E\d{12})/.exec(x!)![1]));
    // The refusals are in the issuer's audit log, one entry for the request.
    const audit = await auditRows(company.id, "code = 'device_receipts_refused'");
    expect(audit).toHaveLength(1);
    expect(String(audit[0]!.detail)).toContain("/receipts/5/xml");
  });

  it("the same e-NCF twice in one batch: the same bytes are one receipt, other bytes a conflict", async () => {
    const { company, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const xml = await signedReceipt(p, lease.rangeFrom);
    const other = await signEcfXml(
      xml
        .replace(/<Signature .*<\/Signature>/, "")
        .replace("<NombreItem>Producto 1</NombreItem>", "<NombreItem>Producto Y</NombreItem>"),
      await openMaterial(TILL, p.signing),
      bytes(p.signing.certificate),
    );
    const results = await uploadBatch(p.token, [xml, xml, other]);
    expect(results.map((r) => [r.status, r.replayed])).toEqual([
      [200, false],
      [200, true],
      [409, false],
    ]);
    expect(await everyMonthSql(company.id, "SELECT encf FROM receipts")).toEqual([{ encf: results[0]!.encf }]);
  });

  it("a failure on our side stops the recording there; the retry records the rest, in order", async () => {
    const { company, created, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const xmls = await Promise.all([0, 1, 2, 3].map((i) => signedReceipt(p, lease.rangeFrom + i)));
    const encfs = xmls.map((xml) => /<eNCF>(E\d{12})/.exec(xml)![1]!);
    // R2 refuses the second receipt's bytes (once).
    let failOnce = true;
    const archive = new Proxy(env.ARCHIVE, {
      get(bucket, property) {
        const value = Reflect.get(bucket, property, bucket) as unknown;
        if (property === "put") {
          return (key: string, ...rest: unknown[]) => {
            if (failOnce && key.endsWith(`${encfs[1]}.xml`))
              return ((failOnce = false), Promise.reject(new Error("R2 unavailable")));
            return Reflect.apply(value as (...a: unknown[]) => unknown, bucket, [key, ...rest]);
          };
        }
        return typeof value === "function"
          ? (...args: unknown[]) => Reflect.apply(value as (...a: unknown[]) => unknown, bucket, args)
          : value;
      },
    });
    const db = database(env.DB);
    const companyRow = (await db.query.companies.findFirst({ where: eq(companies.id, company.id) }))!;
    const device = (await db.query.devices.findFirst({ where: eq(devices.id, created.id) }))!;
    const outcomes = await acceptDeviceReceiptBatch({ ...env, ARCHIVE: archive }, companyRow, device, xmls);
    expect(outcomes.map((o) => ("answer" in o ? 200 : o.problem.status))).toEqual([200, 500, 500, 500]);
    expect((await everyMonthSql(company.id, "SELECT encf FROM receipts ORDER BY rowid")).map((r) => r.encf)).toEqual([
      encfs[0],
    ]);
    // The till sends again from the first receipt it has no answer for: recorded after the first, in order.
    const retry = await uploadBatch(p.token, xmls.slice(1));
    expect(retry.map((r) => [r.status, r.replayed])).toEqual([
      [200, false],
      [200, false],
      [200, false],
    ]);
    expect((await everyMonthSql(company.id, "SELECT encf FROM receipts ORDER BY rowid")).map((r) => r.encf)).toEqual(
      encfs,
    );
  });

  it("refuses a batch that is empty, too long or not receipts, as a whole", async () => {
    const { paired: p } = await paired();
    for (const body of [
      { receipts: [] },
      { receipts: Array.from({ length: 101 }, () => ({ xml: "<ECF/>" })) },
      { receipts: [{ xml: 3 }] },
    ]) {
      const res = await deviceCall(p.token, "/devices/receipts/batch", body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "validation_failed" });
    }
    expect(
      (
        await deviceCall(
          p.token,
          `/devices/receipts?encf=${Array.from({ length: 101 }, (_, i) => `E32${String(i + 1).padStart(10, "0")}`).join(",")}`,
        )
      ).status,
    ).toBe(400);
  });
});

describe("nothing signed is lost", () => {
  const errorCode = async (res: Response) => ((await res.json()) as { errors?: { code: string }[] }).errors?.[0]?.code;

  it("after a certificate change, receipts signed with the previous certificate before the change are accepted; later ones and foreign ones are not", async () => {
    const { company, token, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    type Me = { certificateSerial: string | null; certificateSha256: string | null };
    const meBefore = (await (await deviceCall(p.token, "/devices/me")).json()) as Me;
    // Signed offline (and printed) with the certificate the till holds...
    const before = await signedReceipt(p, lease.rangeFrom);
    const second = await signedReceipt(p, lease.rangeFrom + 1);
    // ...then the issuer renews its certificate before the till is back online.
    await uploadCertificate(company, fixtures.renewedP12);
    const renewed = readPkcs12(bytes(fixtures.renewedP12), fixtures.password);
    // The till learns it from the certificate's digest: the holder's serial is the same.
    const meAfter = (await (await deviceCall(p.token, "/devices/me")).json()) as Me;
    expect(meAfter.certificateSerial).toBe(meBefore.certificateSerial);
    const hex = async (der: Uint8Array) =>
      [...new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(der)))]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
    expect(meBefore.certificateSha256).toBe(await hex(bytes(fixtures.certificateDer)));
    expect(meAfter.certificateSha256).toBe(await hex(renewed.certificate));
    const kept = await env.DB.prepare(
      "SELECT certificate_der AS der, replaced_at AS replacedAt FROM company_certificates WHERE company_id = ?1",
    )
      .bind(company.id)
      .all<{ der: string; replacedAt: string }>();
    expect(kept.results.map((r) => r.der)).toEqual([fixtures.certificateDer]);

    const res = await deviceCall(p.token, "/devices/receipts", { xml: before });
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    expect(await res.json()).toMatchObject({ estado: "Aceptado" });
    expect((await deviceCall(p.token, "/devices/receipts", { xml: second })).status).toBe(200);

    // The old certificate signing after it was replaced is no longer the issuer's signature.
    const after = await signedReceipt(p, lease.rangeFrom + 2, {
      signedAt: new Date(Date.parse(kept.results[0]!.replacedAt) + 60_000),
    });
    const refused = await deviceCall(p.token, "/devices/receipts", { xml: after });
    expect(refused.status).toBe(422);
    expect(await errorCode(refused)).toBe("certificate_not_company");

    // The till's new key (signing material) signs with the new certificate: accepted.
    const rekey = await call(`/tills/${p.device.id}/pairing-code`, { method: "POST", headers: authed(token) });
    expect(rekey.status).toBe(201);
    const { pairingCode } = (await rekey.json()) as { pairingCode: string };
    const material = (await (
      await deviceCall(p.token, "/devices/signing-material", { pairingCode })
    ).json()) as WrappedMaterial;
    expect(bytes(material.certificate)).toEqual(renewed.certificate);
    const fresh = await signedReceipt(p, lease.rangeFrom + 3, {
      key: await openMaterial(TILL, material),
      certificate: bytes(material.certificate),
    });
    expect((await deviceCall(p.token, "/devices/receipts", { xml: fresh })).status).toBe(200);

    // Uploading the same certificate again does not make it a "previous" one.
    await uploadCertificate(company, fixtures.renewedP12);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM company_certificates WHERE company_id = ?1")
      .bind(company.id)
      .first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("a previous certificate of another issuer is still foreign", async () => {
    const other = await paired();
    await uploadCertificate(other.company, fixtures.renewedP12);
    // `other` kept the fixture certificate as a previous one; this company never had the renewed one.
    const { paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const renewed = readPkcs12(bytes(fixtures.renewedP12), fixtures.password);
    const xml = await signedReceipt(p, lease.rangeFrom, {
      key: await importSigningKey(renewed.pkcs8),
      certificate: renewed.certificate,
      signedAt: new Date(Date.now() - 3_600_000),
    });
    const res = await deviceCall(p.token, "/devices/receipts", { xml });
    expect(res.status).toBe(422);
    expect(await errorCode(res)).toBe("certificate_not_company");
  });

  it("a revoked device still uploads the receipts it signed before the revocation, and nothing else", async () => {
    const { company, created, paired: p } = await paired();
    const lease = p.leases.find((l) => l.tipoeCF === "32")!;
    const signedBefore = new Date(Date.now() - 5_000);
    const queued = await signedReceipt(p, lease.rangeFrom, { signedAt: signedBefore });
    const outside = await signedReceipt(p, lease.rangeTo + 10, { signedAt: signedBefore });
    expect(
      (
        await call(`/admin/devices/${created.id}/revoke`, {
          method: "POST",
          headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
        })
      ).status,
    ).toBe(200);

    // Everything else is refused at once, with deviceRevoked so the till deletes its key.
    for (const [path, body] of [
      ["/devices/me", undefined],
      ["/devices/leases", { tipoeCF: "32", size: 10 }],
      ["/devices/signing-material", { pairingCode: "ABCD-EFGH" }],
    ] as const) {
      const r = await deviceCall(p.token, path, body);
      expect(r.status, path).toBe(401);
      expect(await r.json()).toMatchObject({ deviceRevoked: true });
    }
    const res = await deviceCall(p.token, "/devices/receipts", { xml: queued });
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    const answer = (await res.json()) as { encf: string; estado: string };
    expect(answer.estado).toBe("Aceptado");
    expect((await received(company.rnc, answer.encf)).length).toBe(1);
    expect(await (await deviceCall(p.token, `/devices/receipts/${answer.encf}`)).json()).toMatchObject({
      estado: "Aceptado",
    });

    const notLeased = await deviceCall(p.token, "/devices/receipts", { xml: outside });
    expect(await errorCode(notLeased)).toBe("encf_not_leased");
    const revokedAt = (await env.DB.prepare("SELECT revoked_at AS t FROM devices WHERE id = ?1")
      .bind(created.id)
      .first<{ t: string }>())!.t;
    const late = await signedReceipt(p, lease.rangeFrom + 1, { signedAt: new Date(Date.parse(revokedAt) + 2_000) });
    const lateRes = await deviceCall(p.token, "/devices/receipts", { xml: late });
    expect(lateRes.status).toBe(422);
    expect(await errorCode(lateRes)).toBe("signed_after_revocation");

    // The hand-over ends a week after the revocation: then the token is dead for uploads too.
    await env.DB.prepare("UPDATE devices SET revoked_at = ?2 WHERE id = ?1")
      .bind(created.id, new Date(Date.now() - 8 * 24 * 3_600_000).toISOString())
      .run();
    const afterWindow = await deviceCall(p.token, "/devices/receipts", {
      xml: await signedReceipt(p, lease.rangeFrom + 2, { signedAt: signedBefore }),
    });
    expect(afterWindow.status).toBe(401);
    expect(await afterWindow.json()).toMatchObject({ deviceRevoked: true });
  });
});
