// A buyer's side of a receipt in Chromium: the short link printed on the PDF beside DGII's QR
// (read back from the PDF with pdftotext) opens the receipt's page with no account; the page shows
// the issuer, the e-NCF and DGII's state and downloads the signed XML (verified with xmlsec1) and
// the PDF. A wrong code, another e-NCF with this code, or a receipt of another issuer give the
// same 404, and wrong codes for one e-NCF are throttled while the right one still opens it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { registerSigner } from "@ecf/dgii-sandbox/signers-client";
import { createTestIdentity, forgeP12, type TestIdentity, xmlsecVerify } from "@ecf/shared/test-support/certs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

execFileSync("node", [fileURLToPath(new URL("../../scripts/require-tools.mjs", import.meta.url)), "chromium"], {
  stdio: "inherit",
});

const workerUrl = inject("workerUrl");
const sandboxUrl = inject("sandboxUrl");
const adminSecret = inject("adminSecret");
const work = mkdtempSync(join(tmpdir(), "public-receipt-"));
const ISSUER = { rnc: "101000058", name: "Colmado La Esquina SRL", tradeName: "Colmado La Esquina" };
const BUYER = { rnc: "131880738", name: "DIRECCION GENERAL DE IMPUESTOS INTERNOS" };
let browser: Browser;
let identity: TestIdentity;
let token: string;

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const form = body instanceof FormData;
  const res = await fetch(`${workerUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${adminSecret}`,
      ...(body === undefined || form ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : form ? body : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An issuer with its certificate (registered with the sandbox as its signer), an E32 range and a token. */
async function createIssuer(): Promise<string> {
  identity = await createTestIdentity({ rnc: ISSUER.rnc, commonName: ISSUER.name });
  const company = await admin<{ id: string }>("POST", "/admin/companies", {
    name: ISSUER.name,
    tradeName: ISSUER.tradeName,
    registryNumber: ISSUER.rnc,
    address: "Calle El Conde 5, Santo Domingo",
    dgiiServer: "testecf",
  });
  const p12 = new FormData();
  p12.set("file", new File([new Uint8Array(forgeP12(identity, "clave"))], "firma.p12"));
  p12.set("password", "clave");
  await admin("PUT", `/admin/companies/${company.id}/certificate`, p12);
  await registerSigner(sandboxUrl, ISSUER.rnc, [identity.certificatePem]);
  for (const tipo of ["31", "32"])
    await admin("PUT", `/admin/companies/${company.id}/sequences/${tipo}`, {
      rangeFrom: 1,
      rangeTo: 100,
      expiresOn: "2099-12-31",
    });
  // DGII's taxpayer registry holds the buyer who asks for a crédito fiscal invoice.
  const started = await admin<{ importId: number }>("POST", "/admin/taxpayers/imports", { source: "prueba.zip" });
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/rows`, {
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
  await admin("POST", `/admin/taxpayers/imports/${started.importId}/commit`);
  const key = await admin<{ apiKey: string; apiSecret: string }>("POST", "/admin/keys", {
    ownerType: "company",
    ownerId: company.id,
    kind: "test",
  });
  const login = await fetch(`${workerUrl}/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(key),
  });
  return ((await login.json()) as { token: string }).token;
}

/** A consumer receipt (E32 under 250,000: DGII gets only its summary) of one line. */
async function issueConsumerReceipt(name: string): Promise<{ encf: string; estado: string }> {
  const res = await fetch(`${workerUrl}/fe/recepcion/ecf`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      Encabezado: {
        IdDoc: { TipoeCF: "32", TipoIngresos: "01", TipoPago: "1", IndicadorMontoGravado: "0" },
        Comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" },
      },
      DetallesItems: [
        {
          IndicadorFacturacion: 1,
          NombreItem: name,
          IndicadorBienoServicio: 1,
          CantidadItem: 3,
          PrecioUnitarioItem: "125.50",
        },
      ],
    }),
  });
  const body = (await res.json()) as { encf: string; estado: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The short link printed beside the QR, read back from the PDF's text (its lines joined). */
async function printedLink(encf: string): Promise<string> {
  const pdf = await fetch(`${workerUrl}/fe/recepcion/ecf/${encf}/pdf?layout=roll80`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(pdf.status).toBe(200);
  const file = join(work, `${encf}.pdf`);
  writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
  const text = execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" });
  const after = text.split("Consulte su comprobante en:")[1];
  expect(after, text).toBeDefined();
  // The link is wrapped over lines beside the QR: its pieces are the lines up to the next label.
  const pieces = after!
    .trim()
    .split("\n")
    .map((line) => line.trim());
  let link = "";
  for (const piece of pieces) {
    if (!/^[A-Za-z0-9:/._+-]+$/.test(piece) || (link && piece.startsWith("http"))) break;
    link += piece;
  }
  expect(link).toMatch(new RegExp(`^${workerUrl}/r/${ISSUER.rnc}${encf}[A-Za-z0-9_-]{6}$`));
  return link;
}

beforeAll(async () => {
  token = await createIssuer();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
});

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("a receipt's public page", () => {
  it("opens from the link printed on the receipt, downloads the signed XML and the PDF, and asks for crédito fiscal", async () => {
    const issued = await issueConsumerReceipt("Arroz selecto 5 lb");
    const link = await printedLink(issued.encf);
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const opened = await page.goto(link);
    expect(opened?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe(`/r/${ISSUER.rnc}/${issued.encf}`);
    await page.getByRole("heading", { name: ISSUER.tradeName, level: 1 }).waitFor();
    expect(await page.textContent("[data-encf]")).toBe(issued.encf);
    expect(await page.getAttribute("[data-estado]", "data-estado")).toBe(issued.estado);
    expect(await page.getByRole("cell", { name: "Arroz selecto 5 lb" }).count()).toBe(1);
    expect(await page.getByText("Factura de Consumo Electrónica").count()).toBeGreaterThan(0);

    const [xmlDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Descargar el XML firmado" }).click(),
    ]);
    const xmlFile = join(work, "download.xml");
    await xmlDownload.saveAs(xmlFile);
    const xml = readFileSync(xmlFile, "utf8");
    expect(xml).toContain(`<eNCF>${issued.encf}</eNCF>`);
    const verified = xmlsecVerify(xml, identity.certificatePem);
    expect(verified.ok, verified.output).toBe(true);

    const [pdfDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Descargar el PDF" }).click(),
    ]);
    const pdfFile = join(work, "download.pdf");
    await pdfDownload.saveAs(pdfFile);
    expect(readFileSync(pdfFile).subarray(0, 5).toString()).toBe("%PDF-");
    expect(execFileSync("pdftotext", [pdfFile, "-"], { encoding: "utf8" })).toContain(issued.encf);

    // The buyer paid as a consumer and needs a crédito fiscal invoice: it asks on the page.
    await page.getByLabel("RNC o cédula").fill(BUYER.rnc);
    await page.getByRole("button", { name: "Solicitar factura de crédito fiscal" }).click();
    await page.getByRole("heading", { name: "Factura de Crédito Fiscal Electrónica" }).waitFor();
    const e31 = (await page.textContent("[data-encf]"))!;
    expect(e31).toMatch(/^E31\d{10}$/);
    expect(await page.textContent("main")).toContain(`Modifica el comprobante ${issued.encf}`);
    expect(await page.textContent("main")).toContain(`Cliente: ${BUYER.name} (RNC ${BUYER.rnc})`);
    expect(await page.getAttribute("[data-estado]", "data-estado")).toBe("Aceptado");
    // An E31 offers no second exchange, and the E32's page refuses a second request.
    expect(await page.getByRole("button", { name: "Solicitar factura de crédito fiscal" }).count()).toBe(0);
    await context.close();
  });

  it("gives the same 404 for a wrong code, another e-NCF with this code, and an unknown issuer", async () => {
    const first = await issueConsumerReceipt("Aceite 1 litro");
    const second = await issueConsumerReceipt("Habichuelas rojas");
    const code = new URL(
      await fetch(await printedLink(first.encf), { redirect: "manual" }).then((r) => r.headers.get("location")!),
    ).searchParams.get("c")!;
    const page = (rnc: string, encf: string, c: string, file = "") =>
      fetch(`${workerUrl}/r/${rnc}/${encf}${file}?c=${encodeURIComponent(c)}`);
    expect((await page(ISSUER.rnc, first.encf, code)).status).toBe(200);
    const wrong = code.startsWith("A") ? `B${code.slice(1)}` : `A${code.slice(1)}`;
    const misses = [
      await page(ISSUER.rnc, first.encf, wrong),
      await page(ISSUER.rnc, second.encf, code),
      await page(ISSUER.rnc, second.encf, code, "/xml"),
      await page(ISSUER.rnc, first.encf, wrong, "/pdf"),
      await page("131880738", first.encf, code),
    ];
    const bodies = await Promise.all(misses.map(async (res) => ({ status: res.status, body: await res.json() })));
    // One answer for every miss: beyond the request's own id and path, nothing tells them apart.
    const told = bodies.map(({ status, body: { requestId: _id, instance: _path, ...rest } }) => ({ status, ...rest }));
    expect(new Set(told.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(told[0]).toMatchObject({
      status: 404,
      code: "not_found",
      detail: "No receipt answers this address.",
      errors: [],
    });
  });

  it("throttles wrong codes for one e-NCF (429 with Retry-After) while its own code still opens it", async () => {
    const issued = await issueConsumerReceipt("Café molido");
    const location = (await fetch(await printedLink(issued.encf), { redirect: "manual" })).headers.get("location")!;
    const code = new URL(location).searchParams.get("c")!;
    const wrong = code.startsWith("Z") ? `Y${code.slice(1)}` : `Z${code.slice(1)}`;
    const url = (c: string) => `${workerUrl}/r/${ISSUER.rnc}/${issued.encf}?c=${encodeURIComponent(c)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await fetch(url(wrong))).status);
    expect(statuses).toEqual([...Array(10).fill(404), 429]);
    const refused = await fetch(url(wrong));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await fetch(url(code))).status).toBe(200);
  });
});
