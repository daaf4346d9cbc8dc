#!/usr/bin/env node
// Demo data for local use, created through the administration API of the running worker.
// Idempotent: what exists is reused, and the demo credentials (shown once by the API) are kept in
// .wrangler/demo-credentials.json so a second run prints the same ones.
// `npm run seed` prints the demo credentials as JSON (the worker must be running: `npm start`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { adminClient } from "./admin-client.mjs";
import { generateTestP12 } from "./demo-certificate.mjs";
import { root } from "./lib.mjs";

const TYPES = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"];
const DEMO_COMPANIES = [
  { legalName: "Demo Comercial SRL", tradeName: "Demo Comercial", rnc: "131880681", address: "Av. Winston Churchill 1099", province: "010000", municipality: "010100" },
  { legalName: "Segunda Demo SRL", tradeName: "Segunda Demo", rnc: "130000002" },
];
const CERTIFICATE_PASSWORD = "demo1234";

async function ensureCompany(api, input) {
  const { companies } = await api.get(`/admin/companies?rnc=${input.rnc}`);
  return companies[0] ?? (await api.post("/admin/companies", { ...input, dgiiEnvironment: "testecf", invoiceLimitPerMonth: 10_000 }));
}

/** Seeds the running worker at `baseUrl`; returns the demo credentials. */
export async function seed(baseUrl, stateFile = join(root, ".wrangler", "demo-credentials.json")) {
  const api = adminClient(baseUrl);
  const saved = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : {};

  const [main, second] = [await ensureCompany(api, DEMO_COMPANIES[0]), await ensureCompany(api, DEMO_COMPANIES[1])];
  for (const company of [main, second]) {
    for (const tipo of TYPES) {
      // Registering the same range again keeps the next number: harmless on a second run.
      await api.put(`/admin/companies/${company.id}/sequences/${tipo}`, { rangeFrom: 1, rangeTo: 9_999_999, expiresOn: "2028-12-31" });
    }
    if (!saved.certificates?.[company.rnc]) {
      const form = new FormData();
      const p12 = generateTestP12({ commonName: `${company.legalName} (demo)`, serialNumber: company.rnc, password: CERTIFICATE_PASSWORD });
      form.set("file", new File([p12], `${company.rnc}-demo.p12`, { type: "application/x-pkcs12" }));
      form.set("password", CERTIFICATE_PASSWORD);
      await api.put(`/admin/companies/${company.id}/certificate`, form);
      saved.certificates = { ...saved.certificates, [company.rnc]: true };
    }
  }

  const keyAlive = async (keyId) => {
    if (!keyId) return false;
    const { keys } = await api.get(`/admin/keys`);
    return keys.some((k) => k.id === keyId && !k.revokedAt);
  };

  if (!(await keyAlive(saved.company?.keyId))) {
    const key = await api.post("/admin/keys", { ownerType: "company", ownerId: main.id, kind: "test" });
    saved.company = { rnc: main.rnc, keyId: key.id, apiKey: key.apiKey, apiSecret: key.apiSecret };
  }
  if (!saved.partner?.id) {
    const partner = await api.post("/admin/partners", { name: "Demo Software House SRL" });
    saved.partner = { id: partner.id, name: partner.name };
  }
  for (const company of [main, second]) await api.post(`/admin/partners/${saved.partner.id}/companies`, { companyId: company.id });
  if (!(await keyAlive(saved.partner.keyId))) {
    const key = await api.post("/admin/keys", { ownerType: "partner", ownerId: saved.partner.id, kind: "test" });
    Object.assign(saved.partner, { keyId: key.id, apiKey: key.apiKey, apiSecret: key.apiSecret, issuers: [main.rnc, second.rnc] });
  }

  mkdirSync(dirname(stateFile), { recursive: true });
  writeFileSync(stateFile, JSON.stringify(saved, null, 2), { mode: 0o600 });
  return {
    worker: baseUrl,
    company: { rnc: main.rnc, name: main.legalName, apiKey: saved.company.apiKey, apiSecret: saved.company.apiSecret },
    partner: { name: saved.partner.name, apiKey: saved.partner.apiKey, apiSecret: saved.partner.apiSecret, issuers: saved.partner.issuers },
    certificatePassword: CERTIFICATE_PASSWORD,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await seed(process.env.WORKER_URL ?? "http://127.0.0.1:8787");
  console.log(JSON.stringify(result, null, 2));
}
