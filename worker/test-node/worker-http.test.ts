// The worker over real HTTP, as `npm start` runs it: `wrangler dev` (local D1 and R2) and the DGII
// sandbox. Issuing: a receipt posted to the API reaches the sandbox and is accepted, and its
// archived XML verifies with xmlsec1. Receiving: the sandbox's emisor-receptor simulator plays a
// supplier that sends us an e-CF; the ARECF it gets back must verify with our verifier and with
// xmlsec1, an independent implementation.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ecfToXml, formatDgiiDateTime, parseArecf, signEcfXml, verifyXml } from "@ecf/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";
import { startSandbox, type RunningSandbox } from "@ecf/dgii-sandbox/start";
import { createTestIdentity, forgeP12, xmlsecVerify, type TestIdentity } from "@ecf/shared/test-support/certs";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { TIPOS_ECF } from "@ecf/shared";
import { root, wranglerEnv } from "../../scripts/lib.mjs";

Object.assign(process.env, { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" });

const secrets = {
  JWT_SECRET: "node-test-jwt-secret-0123456789abcdef0123456789",
  ADMIN_SECRET: "node-test-admin-secret",
  MASTER_KEY: "bm9kZS10ZXN0LW1hc3Rlci1rZXktMzItYnl0ZXMhISE=",
};

let persist: string;
let sandbox: RunningSandbox;
let worker: { address: string; port: number; stop: () => Promise<void> };
let base: string;
let identity: TestIdentity;
const rnc = "131880738";
let receiverCompanyId: string;
/** What the issuing test issued, for the approval test after it. */
let issued: { issuerRnc: string; companyId: string; auth: Record<string, string>; encf: string } | undefined;

/** An API token of a company (a test key, logged in). */
async function companyToken(companyId: string): Promise<Record<string, string>> {
  const adminHeaders = { Authorization: `Bearer ${secrets.ADMIN_SECRET}`, "Content-Type": "application/json" };
  const key = await json(
    await fetch(`${base}/admin/keys`, {
      method: "POST",
      headers: adminHeaders,
      body: JSON.stringify({ ownerType: "company", ownerId: companyId, kind: "test" }),
    }),
  );
  const { token } = await json(
    await fetch(`${base}/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiKey: key.apiKey, apiSecret: key.apiSecret }),
    }),
  );
  return { Authorization: `Bearer ${token}` };
}

async function requireAuthentication(auth: Record<string, string>) {
  await json(
    await fetch(`${base}/receiver/settings`, {
      method: "PUT",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ requireAuthentication: true }),
    }),
  );
}

async function json(res: Response) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.url} → ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

beforeAll(async () => {
  persist = mkdtempSync(join(tmpdir(), "ecf-receiver-http-"));
  execFileSync(
    join(root, "node_modules/.bin/wrangler"),
    ["d1", "migrations", "apply", "DB", "--local", "-c", join(root, "wrangler.toml"), "--persist-to", persist],
    {
      env: wranglerEnv,
      stdio: "pipe",
    },
  );
  sandbox = await startSandbox({ processingMs: 50 });
  const { unstable_dev } = await import("wrangler");
  worker = await unstable_dev(join(root, "worker/src/index.ts"), {
    config: join(root, "wrangler.toml"),
    ip: "127.0.0.1",
    persistTo: persist,
    vars: { ...secrets, DGII_SANDBOX_URL: sandbox.url },
    logLevel: "error",
    experimental: {
      disableExperimentalWarning: true,
      showInteractiveDevSession: false,
      disableDevRegistry: true,
      watch: false,
    },
  });
  base = `http://127.0.0.1:${worker.port}`;

  // A receiving company with its certificate, through the admin API.
  identity = await createTestIdentity({ rnc: "131880681", commonName: "RECEPTOR DE PRUEBA SRL" });
  const adminHeaders = { Authorization: `Bearer ${secrets.ADMIN_SECRET}` };
  const company = await json(
    await fetch(`${base}/admin/companies`, {
      method: "POST",
      headers: { ...adminHeaders, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "Receptor SRL",
        registryNumber: rnc,
        dgiiServer: "testecf",
        invoiceLimitPerMonth: 100,
      }),
    }),
  );
  receiverCompanyId = company.id;
  const form = new FormData();
  form.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
  form.set("password", "clave");
  await json(
    await fetch(`${base}/admin/companies/${company.id}/certificate`, {
      method: "PUT",
      headers: adminHeaders,
      body: form,
    }),
  );
  await registerSigner(sandbox.url, rnc, [identity.certificatePem]);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await sandbox?.close();
  if (persist) rmSync(persist, { recursive: true, force: true });
});

async function supplierSends(to: string, sequence: number, options: { authenticate?: boolean } = {}) {
  const xml = await signEcfXml(
    ecfToXml(makeEcf("31", { sequence, fechaHoraFirma: formatDgiiDateTime(new Date()) })),
    identity.privateKey,
    identity.certificateDer,
  );
  return json(
    await fetch(`${sandbox.url}/__sandbox/emisor/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ to, xml, ...options }),
    }),
  );
}

describe("the sandbox's emisor-receptor simulator sends us an e-CF", () => {
  it.each([
    ["on the bare path (receiver from RNCComprador)", "", 501],
    ["under the receiver's /{rnc} prefix", `/${rnc}`, 502],
  ])(
    "%s: we answer a signed ARECF Estado 0 that verifies with xmldsigjs and xmlsec1",
    async (_label, prefix, sequence) => {
      const sent = await supplierSends(`${base}${prefix}`, sequence);
      expect(sent.status).toBe(200);
      expect(sent.contentType).toMatch(/application\/xml/);
      expect(sent.arecf).toMatchObject({
        RNCComprador: rnc,
        Estado: "0",
        eNCF: `E31${String(sequence).padStart(10, "0")}`,
      });
      expect(sent.signature).toMatchObject({ ok: true });
      expect((await verifyXml(sent.body)).ok).toBe(true);
      const xmlsec = xmlsecVerify(sent.body, identity.certificatePem);
      expect(xmlsec.ok, xmlsec.output).toBe(true);
      expect(parseArecf(sent.body).FechaHoraAcuseRecibo).toMatch(/^\d{2}-\d{2}-\d{4} ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
    },
  );

  it("a second copy gets Estado 1 with code 3 (duplicate), also signed", async () => {
    await supplierSends(base, 503);
    const again = await supplierSends(base, 503);
    expect(again.arecf).toMatchObject({ Estado: "1", CodigoMotivoNoRecibido: "3" });
    expect(xmlsecVerify(again.body, identity.certificatePem).ok).toBe(true);
  });
});

describe("issuing under wrangler dev", () => {
  it("an E31 and an E32 summary are accepted by the sandbox; the archived XML verifies with xmlsec1", async () => {
    const adminHeaders = { Authorization: `Bearer ${secrets.ADMIN_SECRET}`, "Content-Type": "application/json" };
    const issuerRnc = "101000099";
    const company = await json(
      await fetch(`${base}/admin/companies`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({
          name: "Emisora HTTP SRL",
          registryNumber: issuerRnc,
          address: "Calle 1",
          dgiiServer: "testecf",
          invoiceLimitPerMonth: 100,
        }),
      }),
    );
    const form = new FormData();
    form.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
    form.set("password", "clave");
    await json(
      await fetch(`${base}/admin/companies/${company.id}/certificate`, {
        method: "PUT",
        headers: { Authorization: adminHeaders.Authorization },
        body: form,
      }),
    );
    await registerSigner(sandbox.url, issuerRnc, [identity.certificatePem]);
    for (const tipo of TIPOS_ECF) {
      await json(
        await fetch(`${base}/admin/companies/${company.id}/sequences/${tipo}`, {
          method: "PUT",
          headers: adminHeaders,
          body: JSON.stringify({ rangeFrom: 1, rangeTo: 1000, expiresOn: "2030-12-31" }),
        }),
      );
    }
    const key = await json(
      await fetch(`${base}/admin/keys`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({ ownerType: "company", ownerId: company.id, kind: "test" }),
      }),
    );
    const { token } = await json(
      await fetch(`${base}/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ apiKey: key.apiKey, apiSecret: key.apiSecret }),
      }),
    );
    const auth = { Authorization: `Bearer ${token}` };

    for (const tipo of ["31", "32"] as const) {
      const request = {
        Encabezado: {
          IdDoc: { TipoeCF: tipo, TipoIngresos: "01", TipoPago: "1", IndicadorMontoGravado: "0" },
          Comprador: { RNCComprador: "131880738", RazonSocialComprador: "Cliente SRL" },
        },
        DetallesItems: [
          {
            IndicadorFacturacion: 1,
            NombreItem: "Servicio",
            IndicadorBienoServicio: 2,
            CantidadItem: 2,
            PrecioUnitarioItem: "1500.00",
          },
        ],
      };
      let answer = await json(
        await fetch(`${base}/fe/recepcion/ecf`, {
          method: "POST",
          headers: { ...auth, "Content-Type": "application/json" },
          body: JSON.stringify(request),
        }),
      );
      for (let i = 0; i < 20 && answer.estado === "En Proceso"; i++) {
        await new Promise((r) => setTimeout(r, 500));
        answer = await json(await fetch(`${base}/fe/recepcion/ecf/${answer.encf}`, { headers: auth }));
      }
      expect(answer, JSON.stringify(answer)).toMatchObject({ estado: "Aceptado", encf: `E${tipo}0000000001` });
      const xml = await (await fetch(`${base}/fe/recepcion/ecf/${answer.encf}/xml`, { headers: auth })).text();
      const xmlsec = xmlsecVerify(xml, identity.certificatePem);
      expect(xmlsec.ok, xmlsec.output).toBe(true);
      const seen = (await (
        await fetch(`${sandbox.url}/__sandbox/received?rnc=${issuerRnc}&encf=${answer.encf}`)
      ).json()) as { kind: string }[];
      expect(seen.map((r) => r.kind)).toEqual([tipo === "32" ? "rfce" : "ecf"]);
      if (tipo === "31") issued = { issuerRnc, companyId: company.id, auth, encf: answer.encf };
    }
  }, 120_000);
});

describe("authentication and commercial approvals through the simulator", () => {
  it("a receiver that requires authentication: the simulator's e-CF is refused without a token, received after it authenticates; xmlsec1 verifies the ARECF", async () => {
    await requireAuthentication(await companyToken(receiverCompanyId));
    const refused = await supplierSends(`${base}/${rnc}`, 601);
    expect(refused.status).toBe(401);
    expect(refused.arecf).toBeNull();
    const sent = await supplierSends(`${base}/${rnc}`, 602, { authenticate: true });
    expect(sent.authentication).toEqual({ status: 200 });
    expect(sent.status).toBe(200);
    expect(sent.arecf).toMatchObject({ RNCComprador: rnc, Estado: "0", eNCF: "E310000000602" });
    const xmlsec = xmlsecVerify(sent.body, identity.certificatePem);
    expect(xmlsec.ok, xmlsec.output).toBe(true);
  });

  it("the buyer's approval of one of our receipts, sent by the simulator with authentication, shows on the receipt", async () => {
    expect(issued, "the issuing test issues the E31 this approves").toBeDefined();
    const { issuerRnc, auth, encf } = issued!;
    await requireAuthentication(auth);
    const xml = await (await fetch(`${base}/fe/recepcion/ecf/${encf}/xml`, { headers: auth })).text();
    const leaf = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml)![1]!;
    const fields = {
      RNCEmisor: issuerRnc,
      eNCF: encf,
      FechaEmision: leaf("FechaEmision"),
      MontoTotal: leaf("MontoTotal"),
      RNCComprador: leaf("RNCComprador"),
      Estado: "1",
      FechaHoraAprobacionComercial: "02-05-2026 10:11:12",
    };
    const send = (body: Record<string, unknown>) =>
      fetch(`${sandbox.url}/__sandbox/emisor/send-approval`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }).then(json);
    expect((await send({ to: `${base}/${issuerRnc}`, ...fields })).status).toBe(401);
    const sent = await send({ to: `${base}/${issuerRnc}`, authenticate: true, ...fields });
    expect(sent.authentication).toEqual({ status: 200 });
    expect(sent.status, sent.body).toBe(200);
    // DGII's word for the approval (the ACECF's Estado), its only name since 1.9.0.
    expect(sent.answer).toMatchObject({ encf, estado: "Aceptado" });
    expect(sent.answer).not.toHaveProperty("status");
    const receipt = await json(await fetch(`${base}/fe/recepcion/ecf/${encf}`, { headers: auth }));
    expect(receipt.aprobacionComercial).toEqual({
      estado: "Aceptado",
      motivo: null,
      fechaHoraAprobacionComercial: "02-05-2026 10:11:12",
    });
  });
});
