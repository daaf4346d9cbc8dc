// Verificación en dos pasos in Chromium against the real stack: an owner turns it on under
// Configuración (the secret shown grouped, as a link and a QR), confirms it with a code this test
// computes from the secret shown, signs out, is asked for the app's code at sign-in and gets in
// with it, and with it accepts an invitation to another company; then turns it off with the
// password. Codes use the real clock: each is computed just before it is typed, for a step the
// service still accepts (its window is a step either side).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, timeStep, totpCode } from "../../../worker/src/crypto/totp.ts";
import { A, accept, B, cliInvitation, go, PASSWORD, startWorld, stopWorld, type World } from "./console-world.ts";

let world: World;
let owner: Page;
let secret: Uint8Array;
/** The step of the last code typed: the service never takes it (or an earlier one) again. */
let lastStep = 0;
const EMAIL = "dueno-dos-pasos@super.do";

/**
 * The app's code now, or the next step's when this step's was used already. The service takes a
 * step only within one of its clock's, so when the next unused step is further ahead (two codes
 * in one 30 s step), this waits for the real clock to reach it, as a person waits for the app.
 */
async function nextCode(): Promise<string> {
  lastStep = Math.max(timeStep(new Date()), lastStep + 1);
  while (lastStep > timeStep(new Date()) + 1) await new Promise((resolve) => setTimeout(resolve, 250));
  return totpCode(secret, lastStep);
}

/** Six digits that are none of the app's codes near now: wrong whenever the service reads them. */
async function wrongCode(): Promise<string> {
  const now = timeStep(new Date());
  const near = await Promise.all([-1, 0, 1, 2].map((o) => totpCode(secret, now + o)));
  return ["000000", "111111", "222222", "333333", "444444"].find((c) => !near.includes(c))!;
}

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

describe("two-step verification, as an owner turns it on and signs in with it", () => {
  it("the owner activates it under Configuración with a code from the secret shown", async () => {
    ({ page: owner } = await accept(world, cliInvitation(world, A.rnc, EMAIL), A.name, "Dueño"));
    await go(world, owner, "#/configuracion", "Configuración");
    const card = owner.locator("article", { has: owner.getByRole("heading", { name: "Verificación en dos pasos" }) });
    await expect.poll(() => card.textContent()).toContain("Está desactivada");
    await card.getByRole("button", { name: "Activar la verificación en dos pasos" }).click();

    const shown = (await card.locator("#clave-dos-pasos").textContent({ timeout: 10_000 }))!;
    // Grouped by four for typing: 20 bytes are 32 base32 characters.
    expect(shown).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
    secret = base32Decode(shown)!;
    expect(secret).toHaveLength(20);
    const link = await card.getByRole("link", { name: /Abrir en la aplicación/ }).getAttribute("href");
    expect(link).toContain(`otpauth://totp/ecf-edge:${encodeURIComponent(EMAIL)}?secret=${shown.replace(/ /g, "")}`);
    expect(await card.getByRole("img", { name: /Código QR/ }).getAttribute("src")).toMatch(/^data:image\/png/);

    // A wrong code is refused in Spanish, no field path shown.
    await card.getByLabel("Código de la aplicación de autenticación").fill(await wrongCode());
    await card.getByRole("button", { name: "Confirmar y activar" }).click();
    await expect.poll(() => card.textContent()).toContain("no es válido");
    expect(await card.textContent()).not.toContain("/code");

    await card.getByLabel("Código de la aplicación de autenticación").fill(await nextCode());
    await card.getByRole("button", { name: "Confirmar y activar" }).click();
    await expect.poll(() => card.textContent()).toContain("Está activa");
    expect(await card.textContent()).not.toContain(shown);
  });

  it("after signing out, the sign-in asks for the app's code and takes it", async () => {
    await owner.getByRole("button", { name: "Cerrar sesión" }).click();
    await owner.getByRole("heading", { name: "Entrar a la consola" }).waitFor();
    await owner.getByLabel("Correo electrónico").fill(EMAIL);
    await owner.getByLabel("Contraseña").fill(PASSWORD);
    const appCode = owner.getByLabel("Código de la aplicación de autenticación");
    expect(await appCode.isVisible()).toBe(false);
    await owner.getByRole("button", { name: "Entrar" }).click();
    await expect.poll(() => owner.textContent("[role=alert]")).toContain("verificación en dos pasos activa");
    await appCode.fill(await nextCode());
    await owner.getByRole("button", { name: "Entrar" }).click();
    await owner.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
    expect(await owner.textContent("header")).toContain(`${EMAIL} · Dueño`);
  });

  it("accepting an invitation to another company asks for the app's code too", async () => {
    const context = await world.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${world.stack.workerUrl}${cliInvitation(world, B.rnc, EMAIL)}`);
    await expect.poll(() => page.textContent(".invitation-company")).toContain(B.name);
    await page.getByLabel("Contraseña nueva").fill(PASSWORD);
    await page.getByRole("button", { name: "Aceptar y entrar" }).click();
    await expect.poll(() => page.textContent("[role=alert]")).toContain("verificación en dos pasos activa");
    await page.getByLabel("Código de la aplicación de autenticación").fill(await nextCode());
    await page.getByRole("button", { name: "Aceptar y entrar" }).click();
    await page.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
    await context.close();
  });

  it("the owner turns it off with the password; the password alone signs in again", async () => {
    await go(world, owner, "#/configuracion", "Configuración");
    const card = owner.locator("article", { has: owner.getByRole("heading", { name: "Verificación en dos pasos" }) });
    await expect.poll(() => card.textContent()).toContain("Está activa");
    await card.getByLabel("O su contraseña").fill(PASSWORD);
    await card.getByRole("button", { name: "Desactivar" }).click();
    await expect.poll(() => card.textContent()).toContain("Está desactivada");
    const res = await fetch(`${world.stack.workerUrl}/console/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
  });
});
