// The world every console browser test starts from (wrangler dev + the DGII sandbox and its mail
// sink, as `npm start` runs them): the console built, company A (the issuer, certificate and E31
// range from 1000) and supplier B (E31 from 500, its certificate registered as B's signer with
// DGII), a buyer in DGII's taxpayer registry, A listed in DGII's directory as receiving on this
// platform, and a headless Chromium. The helpers walk a console user in through an invitation.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createTestIdentity, forgeP12, type TestIdentity } from "@ecf/shared/test-support/certs";
import { buildFrontEnd, ROOT, startStack, type Stack } from "@ecf/pos-client/test-support/pos-stack";
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";
import { createTestIssuer, issuerToken } from "@ecf/pos-client/test-support/support/issuer";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

execFileSync("node", [fileURLToPath(new URL("../../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

export const RESULTS = fileURLToPath(new URL("../../test-results/", import.meta.url));
export const A = { rnc: "131880681", name: "SUPERMERCADO DE PRUEBA SRL" };
export const B = { rnc: "101010101", name: "PROVEEDORA B SRL" };
export const BUYER = { rnc: "131880738", name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" };
export const PASSWORD = "clave-larga-de-prueba";

export interface World {
  stack: Stack;
  browser: Browser;
  /** Company ids (for admin calls) and API tokens of A and B. */
  companyA: string;
  companyB: string;
  tokenA: string;
  tokenB: string;
  identityA: TestIdentity;
  identityB: TestIdentity;
}

export async function startWorld(): Promise<World> {
  mkdirSync(RESULTS, { recursive: true });
  buildFrontEnd("console");
  const [stack, identityA, identityB] = await Promise.all([
    startStack(),
    createTestIdentity({ rnc: A.rnc, commonName: A.name }),
    createTestIdentity({ rnc: B.rnc, commonName: B.name }),
  ]);
  const address = "Av. 27 de Febrero 100, Santo Domingo";
  const a = await createTestIssuer(
    stack,
    identityA,
    { name: A.name, tradeName: "Súper", registryNumber: A.rnc, address },
    1000,
  );
  // B numbers its E31 from 500, so no e-NCF of A's is also one of B's: "not shown" means not shown.
  const b = await stack.admin<{ id: string }>("POST", "/admin/companies", {
    name: B.name,
    tradeName: "Prov",
    registryNumber: B.rnc,
    address,
    dgiiServer: "testecf",
  });
  const p12 = new FormData();
  p12.set("file", new File([new Uint8Array(forgeP12(identityB, "clave"))], "firma.p12"));
  p12.set("password", "clave");
  await stack.admin("PUT", `/admin/companies/${b.id}/certificate`, p12);
  // DGII (the sandbox) takes B's e-CF only signed by a certificate registered as B's signer.
  await registerSigner(stack.sandboxUrl, B.rnc, [identityB.certificatePem]);
  await stack.admin("PUT", `/admin/companies/${b.id}/sequences/31`, {
    rangeFrom: 500,
    rangeTo: 1000,
    expiresOn: "2099-12-31",
  });
  const [tokenA, tokenB] = await Promise.all([issuerToken(stack, a.id), issuerToken(stack, b.id)]);
  await registerBuyer(stack);
  // DGII's directory: A receives e-CF on this platform, so B's invoice to A becomes A's purchase.
  const receiver = `${stack.workerUrl}/${A.rnc}`;
  const listed = await fetch(`${stack.sandboxUrl}/__sandbox/directory`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify([
      { nombre: A.name, rnc: A.rnc, urlRecepcion: receiver, urlAceptacion: receiver, urlOpcional: null },
    ]),
  });
  expect(listed.ok).toBe(true);
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
  return { stack, browser, companyA: a.id, companyB: b.id, tokenA, tokenB, identityA, identityB };
}

export async function stopWorld(world: World | undefined): Promise<void> {
  await world?.browser.close();
  await world?.stack.stop();
}

/** DGII's taxpayer registry holds the buyer (an E31's buyer name comes from it). */
async function registerBuyer(stack: Stack): Promise<void> {
  const started = await stack.admin<{ importId: number }>("POST", "/admin/taxpayers/imports", {
    source: "prueba.zip",
  });
  await stack.admin("POST", `/admin/taxpayers/imports/${started.importId}/rows`, {
    rows: [
      {
        rnc: BUYER.rnc,
        legalName: BUYER.name,
        tradeName: null,
        activity: "GOBIERNO",
        status: "ACTIVO",
        paymentRegime: "NORMAL",
        registeredOn: "2000-01-01",
      },
    ],
  });
  await stack.admin("POST", `/admin/taxpayers/imports/${started.importId}/commit`);
}

/** `npm run admin -- console:invite` (how a company gets its first owner): the link it prints (and e-mails). */
export function cliInvitation(world: World, rnc: string, email: string, role = "owner"): string {
  const out = execFileSync(
    process.execPath,
    ["scripts/admin.mjs", "console:invite", "--rnc", rnc, "--email", email, "--role", role],
    {
      cwd: ROOT,
      env: { ...process.env, WORKER_URL: world.stack.workerUrl, ADMIN_SECRET: world.stack.adminSecret },
      encoding: "utf8",
    },
  );
  return invitationPath(out);
}

function invitationPath(text: string): string {
  const token = /\/app\/#\/invitacion\/([A-Za-z0-9_-]+)/.exec(text)?.[1];
  if (!token) throw new Error(`no invitation link in:\n${text}`);
  return `/app/#/invitacion/${token}`;
}

/** The invitation link e-mailed to `email`, read from the local mail sink. */
export async function mailedInvitation(world: World, email: string): Promise<string> {
  let link = "";
  await expect
    .poll(
      async () => {
        const mail = (await (await fetch(`${world.stack.sandboxUrl}/__mail`)).json()) as {
          to: string[];
          text: string;
        }[];
        const found = mail.find((m) => m.to.includes(email) && m.text.includes("/app/#/invitacion/"));
        link = found ? invitationPath(found.text) : "";
        return link;
      },
      { timeout: 30_000, interval: 250 },
    )
    .not.toBe("");
  return link;
}

/** A new browser (its own cookies) that accepts `path`'s invitation and lands on Hoy. */
export async function accept(
  world: World,
  path: string,
  company: string,
  role: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await world.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(`${world.stack.workerUrl}${path}`);
  await expect.poll(() => page.textContent(".invitation-company")).toContain(company);
  expect(await page.textContent(".invitation-role")).toBe(role);
  await page.getByLabel("Contraseña nueva").fill(PASSWORD);
  await page.getByRole("button", { name: "Aceptar y entrar" }).click();
  await page.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
  return { context, page };
}

/** Opens a console page by its hash and waits for its heading. */
export async function go(world: World, page: Page, hash: string, heading: string): Promise<void> {
  await page.goto(`${world.stack.workerUrl}/app/${hash}`);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
}

/** A report read with an API token. */
export async function reportOf(world: World, token: string, path: string): Promise<unknown> {
  return (await fetch(`${world.stack.workerUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } })).json();
}

/** B's E31 to A: one service line, 1000.00 + 18 % ITBIS. */
export function supplierInvoice() {
  return {
    Encabezado: {
      IdDoc: {
        TipoeCF: "31",
        IndicadorMontoGravado: "0",
        TipoIngresos: "01",
        TipoPago: "1",
        TablaFormasPago: [{ FormaPago: "1", MontoPago: "1180.00" }],
      },
      Comprador: { RNCComprador: A.rnc, RazonSocialComprador: A.name },
    },
    DetallesItems: [
      {
        IndicadorFacturacion: "1",
        NombreItem: "Mantenimiento de equipos",
        IndicadorBienoServicio: "2",
        CantidadItem: "1",
        UnidadMedida: "43",
        PrecioUnitarioItem: "1000.00",
      },
    ],
  };
}
