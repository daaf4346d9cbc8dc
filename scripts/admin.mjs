#!/usr/bin/env node
// `npm run admin -- <command> [--option value …]`: the administration API from the command line.
// Talks to WORKER_URL (default http://127.0.0.1:8787) with ADMIN_SECRET (default: .dev.vars).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { adminClient } from "./admin-client.mjs";
import { explainUnreachable } from "./lib.mjs";
import { exportProducts, importProducts, updateDevice } from "./catalog-commands.mjs";
import { importTaxpayerRegistry } from "./taxpayers-import.mjs";

/** The issuer's profile as DGII prints it on the e-CF: NombreComercial, DireccionEmisor, Provincia, Municipio. */
function profileOptions(o) {
  const fields = { tradeName: o["trade-name"], address: o.address, province: o.province, municipality: o.municipality };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

const COMMANDS = {
  "companies:list": [
    "List issuers",
    ["[--rnc R]"],
    (api, o) => api.get(`/admin/companies${o.rnc ? `?registryNumber=${o.rnc}` : ""}`),
  ],
  "companies:create": [
    "Create an issuer (--address is DireccionEmisor, required on every e-CF it signs)",
    [
      "--rnc",
      "--name",
      "--address TEXT",
      "[--trade-name T]",
      "[--province 010000]",
      "[--municipality 010100]",
      "[--env testecf|certecf|ecf]",
      "[--limit N]",
      "[--totals-policy strict|dgii]",
    ],
    (api, o) =>
      api.post("/admin/companies", {
        registryNumber: o.rnc,
        name: o.name,
        dgiiServer: o.env ?? "testecf",
        ...profileOptions(o),
        ...(o.limit ? { invoiceLimitPerMonth: Number(o.limit) } : {}),
        ...(o["totals-policy"] ? { totalsPolicy: o["totals-policy"] } : {}),
      }),
  ],
  "companies:update": [
    "Change an issuer (only the options given)",
    [
      "--id",
      "[--name N]",
      "[--trade-name T]",
      "[--address TEXT]",
      "[--province P]",
      "[--municipality M]",
      "[--env E]",
      "[--limit N]",
      "[--totals-policy strict|dgii]",
      "[--active true|false]",
    ],
    (api, o) =>
      api.patch(`/admin/companies/${o.id}`, {
        ...(o.name ? { name: o.name } : {}),
        ...profileOptions(o),
        ...(o.env ? { dgiiServer: o.env } : {}),
        ...(o.limit ? { invoiceLimitPerMonth: Number(o.limit) } : {}),
        ...(o["totals-policy"] ? { totalsPolicy: o["totals-policy"] } : {}),
        ...(o.active ? { isActive: o.active === "true" } : {}),
      }),
  ],
  "certificate:upload": [
    "Upload an issuer's .p12/.pfx",
    ["--id", "--file PATH", "--password P"],
    (api, o) => {
      const form = new FormData();
      form.set("file", new File([readFileSync(o.file)], basename(o.file)));
      form.set("password", o.password ?? "");
      return api.put(`/admin/companies/${o.id}/certificate`, form);
    },
  ],
  "sequences:set": [
    "Register an authorised e-NCF range",
    ["--id", "--tipo 31", "--from N", "--to N", "--expires yyyy-MM-dd"],
    (api, o) =>
      api.put(`/admin/companies/${o.id}/sequences/${o.tipo}`, {
        rangeFrom: Number(o.from),
        rangeTo: Number(o.to),
        expiresOn: o.expires,
      }),
  ],
  "partners:create": ["Create a partner", ["--name"], (api, o) => api.post("/admin/partners", { name: o.name })],
  "partners:list": [
    "List partners and the issuers each serves",
    ["[--name N]"],
    (api, o) => api.get(`/admin/partners${o.name ? `?name=${encodeURIComponent(o.name)}` : ""}`),
  ],
  "partners:link": [
    "Let a partner act for an issuer",
    ["--partner ID", "--company ID"],
    (api, o) => api.post(`/admin/partners/${o.partner}/companies`, { companyId: o.company }),
  ],
  "keys:create": [
    "Create an API key (key and secret are shown once)",
    ["--owner-type company|partner", "--owner ID", "[--kind test|live]"],
    (api, o) => api.post("/admin/keys", { ownerType: o["owner-type"], ownerId: o.owner, kind: o.kind ?? "test" }),
  ],
  "keys:list": [
    "List keys",
    ["[--owner ID]"],
    (api, o) => api.get(`/admin/keys${o.owner ? `?ownerId=${o.owner}` : ""}`),
  ],
  "keys:rotate": [
    "Replace a key (the old one is revoked)",
    ["--id"],
    (api, o) => api.post(`/admin/keys/${o.id}/rotate`),
  ],
  "keys:revoke": ["Revoke a key", ["--id"], (api, o) => api.post(`/admin/keys/${o.id}/revoke`)],
  "devices:create": [
    "Create a point-of-sale device (prints its one-time pairing code)",
    ["--company ID", "--name NAME"],
    (api, o) => api.post(`/admin/companies/${o.company}/devices`, { name: o.name }),
  ],
  "devices:revoke": [
    "Revoke a device (its token stops at once; it deletes its key)",
    ["--id"],
    (api, o) => api.post(`/admin/devices/${o.id}/revoke`),
  ],
  "devices:update": [
    "Change a till's settings: whether its cashiers may change prices",
    ["--company ID", "--id DEVICE", "--can-edit-prices true|false"],
    (api, o) => updateDevice(api, o.company, o.id, o["can-edit-prices"]),
  ],
  "products:import": [
    "Import a products CSV (code,barcodes,name,price,priceIncludesItbis,itbisRate,unit,kind,active): all of it, or nothing and every bad line listed",
    ["--company ID", "--file products.csv"],
    (api, o) => importProducts(api, o.company, o.file),
  ],
  "products:export": [
    "Export an issuer's products as CSV (to standard output without --file)",
    ["--company ID", "[--file out.csv]"],
    (api, o) => exportProducts(api, o.company, o.file),
  ],
  "cashiers:create": [
    "Add a cashier with a 4-6 digit PIN (the tills check it offline)",
    ["--company ID", "--name N", "--pin 123456"],
    (api, o) => api.post(`/admin/companies/${o.company}/cashiers`, { name: o.name, pin: o.pin }),
  ],
  "console:invite": [
    "Invite a company's console user (its first owner): e-mails the link and prints it",
    ["--rnc R", "--email E", "[--role owner|accountant|manager]", "[--name N]"],
    async (api, o) => {
      const [company] = (await api.get(`/admin/companies?registryNumber=${o.rnc}`)).companies;
      if (!company) throw new Error(`No issuer has RNC ${o.rnc}.`);
      return api.post(`/admin/companies/${company.id}/console-invitations`, {
        email: o.email,
        role: o.role ?? "owner",
        ...(o.name ? { name: o.name } : {}),
      });
    },
  ],
  "taxpayers:import": [
    "Import DGII's taxpayer registry (DGII_RNC.zip as DGII publishes it), replacing the previous import at once; progress on stderr",
    ["--file PATH", "[--chunk ROWS]"],
    (api, o) =>
      importTaxpayerRegistry(api, o.file, {
        ...(o.chunk ? { chunkRows: Number(o.chunk) } : {}),
        report: (line) => console.error(line),
      }),
  ],
  "taxpayers:status": [
    "The taxpayer registry lookups answer from (rows, importedAt) and the latest imports",
    [],
    (api) => api.get("/admin/taxpayers"),
  ],
  "ledger:migrate": [
    "Move every issuer's ledger (or one, --id) from the D1 tables of API 1.7 into its Durable Objects; safe to run again",
    ["[--id ID]"],
    async (api, o) => {
      const ids = o.id ? [o.id] : (await api.get("/admin/companies")).companies.map((c) => c.id);
      const moved = [];
      // One issuer per request, one after another: each request stays small, a failure names its issuer.
      for (const id of ids) moved.push(await api.post(`/admin/companies/${id}/ledger/migrate`));
      return { issuers: moved.length, moved };
    },
  ],
};

/** The option a spec names: "--tipo 31" and "[--env E]" are `tipo` and `env`. */
const optionName = (spec) => spec.replace(/^\[/, "").split(" ")[0].slice(2);

/** Every option of a command takes a value (`--name value` or `--name=value`); others are refused. */
function parseOptions(specs, args) {
  const options = Object.fromEntries(specs.map((spec) => [optionName(spec), { type: "string" }]));
  return parseArgs({ args, options }).values;
}

function usage() {
  console.log("Usage: npm run admin -- <command> [--option value …]\n");
  for (const [name, [description, options]] of Object.entries(COMMANDS))
    console.log(`  ${name.padEnd(20)} ${description}  ${options.join(" ")}`);
}

const [command, ...rest] = process.argv.slice(2);
const entry = COMMANDS[command];
if (!entry) {
  usage();
  process.exit(command ? 2 : 0);
}
try {
  const options = parseOptions(entry[1], rest);
  // Options listed without [brackets] are required: say which is missing before calling the API.
  const missing = entry[1]
    .filter((spec) => !spec.startsWith("["))
    .map(optionName)
    .filter((name) => options[name] === undefined);
  if (missing.length) throw new Error(`${command} needs ${missing.map((m) => `--${m}`).join(", ")}`);
  const result = await entry[2](adminClient(), options);
  // A command that wrote its own output (products:export to standard output) answers nothing.
  if (result !== undefined) console.log(JSON.stringify(result, null, 2));
} catch (raw) {
  const error = explainUnreachable(raw, process.env.WORKER_URL ?? "http://127.0.0.1:8787");
  console.error(error.message);
  if (error.body) console.error(JSON.stringify(error.body, null, 2));
  process.exit(1);
}
