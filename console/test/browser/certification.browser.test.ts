// Certificación in Chromium against the real stack: the owner starts the company's certification
// (the representative, the types), sees DGII's 14 steps with what to do in DGII's portal, and is
// told in Spanish why the company's certificate cannot sign the postulación (its holder is not the
// representative); the receiver self-test answers in words. An accountant sees no such section.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A, accept, cliInvitation, go, startWorld, stopWorld, type World } from "./console-world.ts";

let world: World;

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

describe("Certificación", () => {
  it("the owner starts the certification and reads every step in Spanish words", async () => {
    const { page } = await accept(world, cliInvitation(world, A.rnc, "dueno-certificacion@super.do"), A.name, "Dueño");
    await go(world, page, "#/certificacion", "Certificación");
    await page.getByLabel("Cédula del representante").fill("00112345678");
    await page.getByLabel("Nombre del representante").fill("MARIA PEREZ");
    await page.getByRole("button", { name: "Iniciar" }).click();
    await page.getByRole("heading", { name: "Paso en curso: 1. Registrado (postulación)" }).waitFor();
    const rows = page
      .locator("table", { has: page.locator("caption", { hasText: "Pasos de la certificación" }) })
      .locator("tbody tr");
    expect(await rows.count()).toBe(14);
    expect(await rows.first().textContent()).toContain("Descargue la postulación firmada");
    expect(await page.textContent("main")).not.toMatch(/\/company\/|representative|cedula/);

    await page.getByRole("button", { name: "Descargar postulación" }).click();
    await expect.poll(() => page.textContent("[role=status]")).toContain("no del representante registrado");
  });

  it("tests the company's receiver as DGII will call it, and says each result in words", async () => {
    const { page } = await accept(world, cliInvitation(world, A.rnc, "dueno-receptor@super.do"), A.name, "Dueño");
    await go(world, page, "#/certificacion", "Certificación");
    await page.getByRole("button", { name: "Probar mi receptor" }).click();
    const rows = page
      .locator("table", { has: page.locator("caption", { hasText: "Prueba del receptor" }) })
      .locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(5);
    expect(await rows.nth(2).textContent()).toContain("acuse de recibo firmado");
    expect(await page.textContent("main")).toContain("Su receptor responde todo lo que la DGII le pedirá.");
    expect(await page.textContent("main")).not.toMatch(/\/company\/|semilla\.xml|ARECF|validacioncertificado/);
  });

  it("is not offered to an accountant", async () => {
    const { page } = await accept(
      world,
      cliInvitation(world, A.rnc, "contadora-cert@super.do", "accountant"),
      A.name,
      "Contador",
    );
    expect(await page.getByRole("link", { name: "Certificación" }).count()).toBe(0);
    await page.goto(`${world.stack.workerUrl}/app/#/certificacion`);
    await expect.poll(() => page.textContent("body"), { timeout: 30_000 }).toContain("Solo el propietario");
  });
});
