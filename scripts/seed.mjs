#!/usr/bin/env node
// Demo data for local use, created through the administration API of the running worker.
// Idempotent, and the database is the source of truth: the demo issuers are found by RNC, the
// demo partner by name, certificates by their expiry in the issuer's profile. The demo credentials
// (a secret is shown once by the API) are kept in the running copy's state (ECF_STATE_DIR, or
// .wrangler/demo-credentials.json for the default copy) so a second run prints the same ones; when
// the file is lost, or its keys are gone from a new database, the demo key is rotated (or created)
// and the file written again. The file names the worker it belongs to: a seed aimed at another
// worker refuses it rather than rotate keys that copy handed out.
// `npm run seed` prints the demo credentials as JSON (the worker must be running: `npm start`;
// WORKER_URL picks the copy, whose state `npm start` recorded in .wrangler/running/).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { adminClient, createClient, ProblemError } from "./admin-client.mjs";
import { certificatePemOfP12, generateTestP12 } from "./demo-certificate.mjs";
import { credentialsFileFor, explainUnreachable, root, runningCopy } from "./lib.mjs";

const TYPES = ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"];
// DireccionEmisor is required in every e-CF: each demo issuer has an address.
const DEMO_COMPANIES = [
  {
    name: "Demo Comercial SRL",
    tradeName: "Demo Comercial",
    registryNumber: "131880681",
    address: "Av. Winston Churchill 1099",
    province: "010000",
    municipality: "010100",
  },
  {
    name: "Segunda Demo SRL",
    tradeName: "Segunda Demo",
    registryNumber: "130000002",
    address: "Calle del Sol 45",
    province: "250000",
    municipality: "250100",
  },
];
const DEMO_PARTNER = "Demo Software House SRL";
/** The demo issuer's console owner (the console at /app/): invited and accepted by the seed itself. */
const DEMO_OWNER = { email: "dueno@demo.do", password: "demo-dueno-1234", name: "Dueño Demo" };
const CERTIFICATE_PASSWORD = "demo1234";
/** A till sells only inside a cashier's shift: the demo issuer has one cashier and a few products. */
const DEMO_CASHIER = { name: "Cajero Demo", pin: "123456" };
const DEMO_PRODUCTS = [
  {
    code: "CAFE-1LB",
    barcodes: ["7460000000017"],
    name: "Café molido 1 lb",
    price: "295.00",
    priceIncludesItbis: true,
    itbisRate: "18",
    unit: "43",
    kind: "good",
  },
  {
    code: "ARROZ-5LB",
    barcodes: ["7460000000024"],
    name: "Arroz selecto 5 lb",
    price: "210.00",
    priceIncludesItbis: false,
    itbisRate: "exempt",
    unit: "43",
    kind: "good",
  },
  {
    code: "AGUA-GAL",
    barcodes: ["7460000000031"],
    name: "Agua purificada galón",
    price: "75.00",
    priceIncludesItbis: true,
    itbisRate: "18",
    unit: "43",
    kind: "good",
  },
  {
    code: "DELIVERY",
    barcodes: [],
    name: "Servicio de entrega",
    price: "100.00",
    priceIncludesItbis: false,
    itbisRate: "18",
    unit: "43",
    kind: "service",
  },
];
/** A demo certificate closer than this to its expiry is replaced. */
const CERTIFICATE_RENEW_MS = 30 * 86_400_000;

async function ensureCompany(api, input) {
  const { companies } = await api.get(`/admin/companies?registryNumber=${input.registryNumber}`);
  const existing = companies[0];
  if (!existing) return api.post("/admin/companies", { ...input, dgiiServer: "testecf", invoiceLimitPerMonth: 10_000 });
  // An issuer seeded before it had an address (or edited since) gets its demo profile back.
  const profile = {
    tradeName: input.tradeName,
    address: input.address,
    province: input.province,
    municipality: input.municipality,
  };
  const stale = Object.entries(profile).filter(([k, v]) => existing[k] !== v);
  return stale.length ? api.patch(`/admin/companies/${existing.id}`, Object.fromEntries(stale)) : existing;
}

/**
 * A demo certificate (issued by the sandbox's demo CA) near its expiry, or whose PEM the saved state
 * does not hold (made before the demo CA: self-signed), is replaced. Returns the certificate's PEM,
 * which the sandbox is told is the issuer's authorized signer, as DGII knows each RNC's signers.
 */
async function ensureCertificate(api, company, now, savedPem) {
  const notAfter = company.signatureExpirationDate ? Date.parse(company.signatureExpirationDate) : 0;
  if (savedPem && notAfter - now.getTime() > CERTIFICATE_RENEW_MS) return savedPem;
  const form = new FormData();
  const p12 = generateTestP12({
    commonName: `${company.name} (demo)`,
    serialNumber: company.registryNumber,
    password: CERTIFICATE_PASSWORD,
  });
  form.set("file", new File([p12], `${company.registryNumber}-demo.p12`, { type: "application/x-pkcs12" }));
  form.set("password", CERTIFICATE_PASSWORD);
  await api.put(`/admin/companies/${company.id}/certificate`, form);
  return certificatePemOfP12(p12, CERTIFICATE_PASSWORD);
}

/** DGII's sandbox learns each demo issuer's authorized signer (it keeps them in memory: every run). */
export async function registerSigners(sandboxUrl, certificates) {
  for (const [rnc, pem] of Object.entries(certificates)) {
    const answer = await fetch(`${sandboxUrl}/__sandbox/signers`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ rnc, certificates: [pem] }),
    });
    if (!answer.ok)
      throw new Error(`the DGII sandbox at ${sandboxUrl} refused the signers of ${rnc}: HTTP ${answer.status}`);
  }
}

async function ensurePartner(api, companies) {
  const { partners } = await api.get(`/admin/partners?name=${encodeURIComponent(DEMO_PARTNER)}`);
  const partner = partners[0] ?? (await api.post("/admin/partners", { name: DEMO_PARTNER }));
  for (const company of companies) await api.post(`/admin/partners/${partner.id}/companies`, { companyId: company.id });
  return partner;
}

/**
 * Working credentials for the owner's demo key: the saved ones when their key is still the owner's
 * and a login with them succeeds; otherwise the owner's oldest live test key is rotated (its secret
 * was lost with the file), or a key is created when it has none.
 */
async function ensureKey(api, baseUrl, ownerType, ownerId, saved) {
  const { keys } = await api.get(`/admin/keys?ownerId=${encodeURIComponent(ownerId)}`);
  const live = keys.filter((k) => k.ownerType === ownerType && k.kind === "test" && !k.revokedAt);
  if (saved?.keyId && live.some((k) => k.id === saved.keyId)) {
    const client = createClient({ baseUrl, credentials: { apiKey: saved.apiKey, apiSecret: saved.apiSecret } });
    const loggedIn = await client.session.bearer().then(
      () => true,
      (error) => {
        if (error instanceof ProblemError) return false; // a refused login: the key is rotated below
        throw error;
      },
    );
    if (loggedIn) return saved;
  }
  const oldest = live.sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
  const key = oldest
    ? await api.post(`/admin/keys/${oldest.id}/rotate`)
    : await api.post("/admin/keys", { ownerType, ownerId, kind: "test" });
  return { keyId: key.id, apiKey: key.apiKey, apiSecret: key.apiSecret };
}

export function readSaved(stateFile) {
  try {
    return existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : {};
  } catch {
    return {}; // an unreadable file is a lost file: the database has the rest
  }
}

/** Seeds the running worker at `baseUrl`; returns the demo credentials. */
export async function seed(
  baseUrl,
  stateFile = join(root, ".wrangler", "demo-credentials.json"),
  { adminSecret, sandboxUrl } = {},
) {
  const api = adminClient(baseUrl, ...(adminSecret ? [adminSecret] : []));
  const saved = readSaved(stateFile);
  if (saved.worker && saved.worker !== baseUrl)
    throw new Error(
      `${stateFile} holds the demo credentials of the worker at ${saved.worker}, not ${baseUrl}: ` +
        "seeding would rotate the keys that copy handed out. Run the seed with that copy's ECF_STATE_DIR, or start it with `npm start`.",
    );
  const now = new Date();

  const companies = [];
  for (const input of DEMO_COMPANIES) companies.push(await ensureCompany(api, input));
  const certificates = {};
  for (const company of companies) {
    for (const tipo of TYPES) {
      // Registering the same range again keeps the next number: harmless on a second run.
      await api.put(`/admin/companies/${company.id}/sequences/${tipo}`, {
        rangeFrom: 1,
        rangeTo: 9_999_999,
        expiresOn: "2028-12-31",
      });
    }
    certificates[company.registryNumber] = await ensureCertificate(
      api,
      company,
      now,
      saved.certificates?.[company.registryNumber],
    );
  }
  if (sandboxUrl) await registerSigners(sandboxUrl, certificates);
  const [main] = companies;
  const partner = await ensurePartner(api, companies);

  const companyKey = await ensureKey(api, baseUrl, "company", main.id, saved.company);
  const partnerKey = await ensureKey(api, baseUrl, "partner", partner.id, saved.partner);
  await ensureStore(baseUrl, companyKey);
  await ensureConsoleOwner(api, baseUrl, main);
  const state = {
    worker: baseUrl,
    company: { rnc: main.registryNumber, companyId: main.id, ...pickKey(companyKey) },
    partner: {
      id: partner.id,
      name: partner.name,
      issuers: companies.map((c) => c.registryNumber),
      ...pickKey(partnerKey),
    },
    // The demo certificates' PEM: the sandbox is told again on every run who signs for each RNC.
    certificates,
  };
  mkdirSync(dirname(stateFile), { recursive: true });
  writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
  return {
    worker: baseUrl,
    company: {
      id: main.id,
      rnc: main.registryNumber,
      name: main.name,
      apiKey: companyKey.apiKey,
      apiSecret: companyKey.apiSecret,
    },
    partner: {
      name: partner.name,
      apiKey: partnerKey.apiKey,
      apiSecret: partnerKey.apiSecret,
      issuers: state.partner.issuers,
    },
    certificatePassword: CERTIFICATE_PASSWORD,
    cashier: DEMO_CASHIER,
    console: { url: `${baseUrl}/app/`, email: DEMO_OWNER.email, password: DEMO_OWNER.password },
  };
}

/** The demo owner signs in already, or is invited and accepts with the demo password (idempotent). */
async function ensureConsoleOwner(api, baseUrl, company) {
  const post = (path, body) =>
    fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const login = await post("/console/login", { email: DEMO_OWNER.email, password: DEMO_OWNER.password });
  if (login.ok) return;
  const { link } = await api.post(`/admin/companies/${company.id}/console-invitations`, {
    email: DEMO_OWNER.email,
    role: "owner",
    name: DEMO_OWNER.name,
  });
  const token = link.slice(link.lastIndexOf("/") + 1);
  const accepted = await post(`/console/invitations/${token}/accept`, { password: DEMO_OWNER.password });
  if (!accepted.ok)
    throw new Error(`the demo console owner could not accept: ${accepted.status} ${await accepted.text()}`);
}

/** The demo cashier and catalogue, through the issuer's own API; only what is missing is created. */
async function ensureStore(baseUrl, key) {
  const issuer = createClient({ baseUrl, credentials: { apiKey: key.apiKey, apiSecret: key.apiSecret } });
  const { data: cashiers } = await issuer.GET("/cashiers");
  if (!cashiers.cashiers.some((c) => c.name === DEMO_CASHIER.name))
    await issuer.POST("/cashiers", { body: DEMO_CASHIER });
  const { data: products } = await issuer.GET("/products", { params: { query: { limit: 100 } } });
  const codes = new Set(products.items.map((p) => p.code));
  for (const product of DEMO_PRODUCTS) if (!codes.has(product.code)) await issuer.POST("/products", { body: product });
}

const pickKey = (k) => ({ keyId: k.keyId, apiKey: k.apiKey, apiSecret: k.apiSecret });

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // The copy at WORKER_URL keeps its credentials in its own state (ECF_STATE_DIR, or npm start's record).
  const workerUrl = process.env.WORKER_URL ?? "http://127.0.0.1:8787";
  try {
    const sandboxUrl = runningCopy(workerUrl)?.sandboxUrl ?? process.env.SANDBOX_URL;
    console.log(JSON.stringify(await seed(workerUrl, credentialsFileFor(workerUrl), { sandboxUrl }), null, 2));
  } catch (error) {
    console.error(explainUnreachable(error, workerUrl).message);
    process.exit(1);
  }
}
