// Configuración end to end in Chromium against the real stack (wrangler dev + the DGII sandbox and
// its mail sink): the owner's API keys (shown once, copied, logged in with, revoked; another
// company's owner never sees them), the totals policy, a webhook endpoint's deliveries and a
// redelivery to a receiver in this test, an e-NCF range, users' roles changed and a user removed,
// and a renewed certificate (its expiry shown dd-MM-yyyy; a wrong password gives the API's message).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestIdentity, forgeP12 } from "@ecf/shared/test-support/certs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  B,
  BUYER,
  cliInvitation,
  go,
  mailedInvitation,
  RESULTS,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

let world: World;
let owner: Page;
/** Every POST the webhook receiver got: its webhook-id and event type. */
const received: { id: string; type: string }[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      received.push({ id: String(req.headers["webhook-id"]), type: (JSON.parse(body) as { type: string }).type });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  world = await startWorld();
}, 300_000);

afterAll(async () => {
  await stopWorld(world);
  receiver?.close();
});

/**
 * Configuración read afresh: a page load, not a hash change (going to the hash the page is already
 * on would render nothing new).
 */
async function openSettings(page: Page): Promise<void> {
  await page.goto(`${world.stack.workerUrl}/app/#/configuracion`);
  await page.reload();
  await page.getByRole("heading", { name: "Configuración", level: 1 }).waitFor();
}
const api = (path: string, init: RequestInit = {}) => fetch(`${world.stack.workerUrl}${path}`, init);
const logIn = (apiKey: string, apiSecret: string) =>
  api("/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiKey, apiSecret }),
  });
const cellOf = (page: Page, caption: string, rowText: string, column: number) =>
  page
    .locator("table", { has: page.locator("caption", { hasText: caption }) })
    .locator("tr", { hasText: rowText })
    .locator("td")
    .nth(column);

describe("Configuración, as the owner uses it (one story, in order)", () => {
  it("the owner signs in through the admin CLI's invitation", async () => {
    ({ page: owner } = await accept(world, cliInvitation(world, A.rnc, "dueno@super.do"), A.name, "Dueño"));
    await owner.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.stack.workerUrl });
  });

  it("API keys: created and shown once with a copy button, a login with them, revoked after a confirmation", async () => {
    await openSettings(owner);
    await owner.getByRole("button", { name: "Crear clave API" }).click();
    const box = owner.getByRole("region", { name: "Clave API nueva" });
    await box.waitFor();
    expect(await box.textContent()).toContain("no se mostrarán otra vez");
    const apiKey = (await box.locator("code[data-copy=Clave]").textContent())!;
    const apiSecret = (await box.locator("code[data-copy=Secreto]").textContent())!;
    expect(apiKey).toMatch(/^ecf_test_/);
    await box.getByRole("button", { name: "Copiar clave" }).click();
    await expect.poll(() => owner.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    await box.getByRole("button", { name: "Copiar secreto" }).click();
    await expect.poll(() => owner.evaluate(() => navigator.clipboard.readText())).toBe(apiSecret);

    // An ordinary key of A: it logs in and acts for A.
    const login = await logIn(apiKey, apiSecret);
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const me = (await (await api("/company/me", { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      registryNumber: string;
    };
    expect(me.registryNumber).toBe(A.rnc);
    const keyId = (await box.locator("code.key-id").textContent())!;
    expect(keyId).toMatch(/^key_test_/);

    // Listed (the login recorded), and once the page is read again the secret is nowhere.
    await openSettings(owner);
    expect(await cellOf(owner, "Claves API de la empresa", keyId, 4).textContent()).toBe("Activa");
    expect(await cellOf(owner, "Claves API de la empresa", keyId, 3).textContent()).toMatch(/^\d{2}-\d{2}-\d{4} /);
    expect(await owner.content()).not.toContain(apiSecret);

    // Revoking asks first; Cancelar keeps the key.
    await owner.getByRole("button", { name: `Revocar ${keyId}` }).click();
    await owner.getByRole("button", { name: "Cancelar" }).click();
    expect((await logIn(apiKey, apiSecret)).status).toBe(200);
    await owner.getByRole("button", { name: `Revocar ${keyId}` }).click();
    await owner.getByRole("button", { name: `Sí, revocar ${keyId}` }).click();
    await expect
      .poll(() => cellOf(owner, "Claves API de la empresa", keyId, 4).textContent())
      .toMatch(/^Revocada \d{2}-\d{2}-\d{4}/);
    expect((await logIn(apiKey, apiSecret)).status).toBe(401);
    expect((await api("/company/me", { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    await owner.screenshot({ path: `${RESULTS}console-claves.png`, fullPage: true });

    // B's owner sees none of A's keys, and cannot revoke one by its id.
    const b = await accept(world, cliInvitation(world, B.rnc, "dueno@proveedora.do"), B.name, "Dueño");
    await go(world, b.page, "#/configuracion", "Configuración");
    await b.page.getByRole("heading", { name: "Claves API" }).waitFor();
    expect(await b.page.textContent("main")).not.toContain(keyId);
    const csrf = (
      (await (await b.context.request.get(`${world.stack.workerUrl}/console/session`)).json()) as {
        csrfToken: string;
      }
    ).csrfToken;
    const revoke = await b.context.request.post(`${world.stack.workerUrl}/company/api-keys/${keyId}/revoke`, {
      headers: { "X-CSRF-Token": csrf },
    });
    expect(revoke.status()).toBe(404);
    await b.context.close();
  });

  it("the totals policy: the owner chooses it and /company/me reflects it", async () => {
    await openSettings(owner);
    const before = (await (
      await api("/company/me", { headers: { Authorization: `Bearer ${world.tokenA}` } })
    ).json()) as { totalsPolicy: string };
    expect(before.totalsPolicy).toBe("strict");
    await owner.getByLabel("Si un total excede la tolerancia").selectOption("dgii");
    await owner.getByRole("button", { name: "Guardar política" }).click();
    await expect.poll(() => owner.locator("dl.facts").textContent()).toContain("Como la DGII");
    await expect
      .poll(async () => {
        const me = await api("/company/me", { headers: { Authorization: `Bearer ${world.tokenA}` } });
        return ((await me.json()) as { totalsPolicy: string }).totalsPolicy;
      })
      .toBe("dgii");
    expect(await owner.getByLabel("Si un total excede la tolerancia").inputValue()).toBe("dgii");
  });

  it("a webhook endpoint: an issued receipt's delivery is listed, and Reenviar sends it again", async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ecf`;
    await openSettings(owner);
    await owner.getByLabel("URL", { exact: true }).fill(url);
    await owner.getByRole("button", { name: "Crear webhook" }).click();
    await expect.poll(() => owner.textContent("main")).toContain("Secreto de firma");

    // A receipt issued with A's API token, accepted by DGII (the sandbox): receipt.accepted.
    const invoice = supplierInvoice();
    invoice.Encabezado.Comprador = { RNCComprador: BUYER.rnc, RazonSocialComprador: BUYER.name };
    const issued = await api("/fe/recepcion/ecf", {
      method: "POST",
      headers: { Authorization: `Bearer ${world.tokenA}`, "Content-Type": "application/json" },
      body: JSON.stringify(invoice),
    });
    expect(issued.ok).toBe(true);
    const { encf } = (await issued.json()) as { encf: string };
    await expect.poll(() => received.filter((r) => r.type === "receipt.accepted").length, { timeout: 90_000 }).toBe(1);
    const first = received.find((r) => r.type === "receipt.accepted")!;

    const caption = `Entregas a ${url}`;
    // The delivery as the API lists it (the console reads the same), awaited before the page is read.
    const delivery = async () => {
      const auth = { headers: { Authorization: `Bearer ${world.tokenA}` } };
      const hooks = (await (await api("/webhooks", auth)).json()) as { webhooks: { id: string; url: string }[] };
      const hook = hooks.webhooks.find((w) => w.url === url)!;
      const listed = (await (await api(`/webhooks/${hook.id}/deliveries`, auth)).json()) as {
        deliveries: { id: string; status: string; attempts: number }[];
      };
      const found = listed.deliveries.find((d) => d.id === first.id);
      return found && `${found.status} ${found.attempts}`;
    };
    await expect.poll(delivery, { timeout: 60_000 }).toBe("done 1");
    const redeliver = owner.getByRole("button", { name: `Reenviar receipt.accepted ${first.id}` });
    // The endpoint is new since the page was drawn: "Actualizar lista" draws its deliveries.
    await owner.getByRole("button", { name: "Actualizar lista" }).click();
    await redeliver.waitFor();
    const row = async () => {
      const cells = owner
        .locator("table", { has: owner.locator("caption", { hasText: caption }) })
        .locator("tr", { has: redeliver })
        .locator("td");
      return (await cells.allTextContents()).slice(0, 5);
    };
    expect(await row()).toEqual(["receipt.accepted", encf, "Entregado", "1", "HTTP 200"]);

    await redeliver.click();
    // The receiver gets the same delivery (same webhook-id) a second time; the list counts the attempt.
    await expect.poll(() => received.filter((r) => r.id === first.id).length, { timeout: 90_000 }).toBe(2);
    await expect.poll(delivery, { timeout: 60_000 }).toBe("done 2");
    await openSettings(owner);
    expect(await row()).toEqual(["receipt.accepted", encf, "Entregado", "2", "HTTP 200"]);
    await owner.screenshot({ path: `${RESULTS}console-webhooks.png`, fullPage: true });
  });

  it("an e-NCF range set from the page is listed with its expiry", async () => {
    await openSettings(owner);
    const form = owner.getByRole("form", { name: "Registrar rango" });
    await form.getByLabel("Tipo").selectOption("33");
    await form.getByLabel("Desde").fill("1");
    await form.getByLabel("Hasta").fill("250");
    await form.getByLabel("Vence").fill("2099-12-31");
    await form.getByRole("button", { name: "Registrar rango" }).click();
    await expect.poll(() => cellOf(owner, "Rangos de e-NCF", "E33", 2).textContent()).toBe("250");
    expect(await cellOf(owner, "Rangos de e-NCF", "E33", 3).textContent()).toBe("E330000000001");
    expect(await cellOf(owner, "Rangos de e-NCF", "E33", 5).textContent()).toBe("31-12-2099");
    const held = (await (
      await api("/company/sequences", { headers: { Authorization: `Bearer ${world.tokenA}` } })
    ).json()) as { sequences: { tipoeCF: string; rangeTo: number; expiresOn: string }[] };
    expect(held.sequences.find((s) => s.tipoeCF === "33")).toMatchObject({ rangeTo: 250 });
  });

  it("a user's role changed, then the user removed: the next request is refused", async () => {
    const email = "auxiliar@super.do";
    await openSettings(owner);
    await owner.getByLabel("Correo", { exact: true }).fill(email);
    await owner.getByLabel("Rol", { exact: true }).selectOption("accountant");
    await owner.getByRole("button", { name: "Invitar" }).click();
    const user = await accept(world, await mailedInvitation(world, email), A.name, "Contador");
    const status = (path: string) => user.page.evaluate(async (p) => (await fetch(p)).status, path);
    expect(await status("/company/me")).toBe(200);

    await openSettings(owner);
    await owner.getByLabel(`Rol de ${email}`).selectOption("manager");
    await expect.poll(() => status("/company/me")).toBe(403);
    expect(await status("/products")).toBe(200);
    await openSettings(owner);
    expect(await owner.getByLabel(`Rol de ${email}`).inputValue()).toBe("manager");

    await owner.getByRole("button", { name: `Quitar ${email}` }).click();
    await expect.poll(() => owner.getByRole("button", { name: `Quitar ${email}` }).count()).toBe(0);
    expect(await owner.locator("table", { hasText: "Usuarios de la consola" }).textContent()).not.toContain(email);
    expect(await status("/products")).toBe(403);
    await user.context.close();
  });

  it("a renewed certificate: a wrong password gives the API's message; the right one shows its expiry", async () => {
    const notAfter = new Date("2029-06-15T12:00:00Z");
    const renewed = await createTestIdentity({ rnc: A.rnc, commonName: A.name, notAfter });
    const p12 = Buffer.from(forgeP12(renewed, "clave-nueva"));
    // What the API answers for a wrong password, read the way any client reads it.
    const form = new FormData();
    form.set("file", new File([p12], "firma-2029.p12"));
    form.set("password", "equivocada");
    const refused = await api("/company/certificate", {
      method: "PUT",
      headers: { Authorization: `Bearer ${world.tokenA}` },
      body: form,
    });
    expect(refused.status).toBe(400);
    const { detail } = (await refused.json()) as { detail: string };

    await openSettings(owner);
    const upload = owner.getByRole("form", { name: "Cargar certificado" });
    await upload
      .getByLabel("Archivo .p12")
      .setInputFiles({ name: "firma-2029.p12", mimeType: "application/x-pkcs12", buffer: p12 });
    await upload.getByLabel("Contraseña del certificado").fill("equivocada");
    await upload.getByRole("button", { name: "Cargar" }).click();
    await expect
      .poll(() => owner.locator("article", { has: upload }).locator("[role=status]").textContent())
      .toContain(detail);

    await upload.getByLabel("Contraseña del certificado").fill("clave-nueva");
    await upload.getByRole("button", { name: "Cargar" }).click();
    const shown = [notAfter.getUTCDate(), notAfter.getUTCMonth() + 1]
      .map((n) => String(n).padStart(2, "0"))
      .concat(String(notAfter.getUTCFullYear()))
      .join("-");
    await expect
      .poll(() => owner.locator("article", { hasText: "Certificado digital" }).textContent())
      .toContain(`firma-2029.p12, vence ${shown}.`);
    const me = (await (await api("/company/me", { headers: { Authorization: `Bearer ${world.tokenA}` } })).json()) as {
      signatureName: string;
      signatureExpirationDate: string;
    };
    expect(me).toMatchObject({ signatureName: "firma-2029.p12" });
    expect(Date.parse(me.signatureExpirationDate)).toBe(notAfter.getTime());
  });
});
