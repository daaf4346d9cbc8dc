// The console's store page (Tienda) in Chromium against the real stack, as the manager (the store is
// the manager's): a product's price edited the Dominican way ("1,250.50") reaches the till's
// catalogue; a cashier created with a PIN reaches the till, whose own PIN check signs the cashier in;
// a till revoked loses its device token. (A closed shift's Z report: console.browser.test.ts.)
import { pinHashMatches, type PinHash } from "@ecf/shared/pin-kdf";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A, accept, cliInvitation, go, startWorld, stopWorld, type World } from "./console-world.ts";

let world: World;
let manager: Page;
/** The token of a till paired before the manager starts (it pulls the catalogue, then is revoked). */
let deviceToken: string;

interface Catalogue {
  products: { code: string; price: string }[];
  cashiers: { name: string; active: boolean; pin: PinHash }[];
}

async function asIssuer<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${world.stack.workerUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${world.tokenA}`, "Content-Type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
  expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
  return (await res.json()) as T;
}

/** What the paired till receives on its first catalogue pull. */
async function tillCatalogue(): Promise<Catalogue> {
  const res = await fetch(`${world.stack.workerUrl}/devices/catalog?since=0`, {
    headers: { Authorization: `Bearer ${deviceToken}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Catalogue;
}

const tillSees = (token: string) =>
  fetch(`${world.stack.workerUrl}/devices/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);

beforeAll(async () => {
  world = await startWorld();
  await asIssuer("POST", "/products", { code: "CAFE-1", name: "Café molido 454 g", price: "1000.00" });
  const till = await asIssuer<{ pairingCode: string }>("POST", "/devices", { name: "Caja Norte" });
  const paired = await fetch(`${world.stack.workerUrl}/devices/pair`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ pairingCode: till.pairingCode }),
  });
  expect(paired.status).toBe(200);
  deviceToken = ((await paired.json()) as { token: string }).token;
}, 300_000);

afterAll(() => stopWorld(world));

describe("the store page, as the manager", () => {
  it("the manager is invited and signs in", async () => {
    const path = cliInvitation(world, A.rnc, "encargado@super.do", "manager");
    ({ page: manager } = await accept(world, path, `${A.name} (${A.rnc})`, "Encargado de tienda"));
  });

  it("edits a product's price typed the Dominican way; the till's catalogue has it", async () => {
    await go(world, manager, "#/tienda", "Tienda");
    await manager.getByRole("button", { name: "Editar CAFE-1" }).click();
    const form = manager.getByRole("form", { name: "Editar CAFE-1" });
    expect(await form.getByLabel("Precio", { exact: true }).inputValue()).toBe("1,000.00");
    // A comma for decimals is refused by the till's parser before anything is sent.
    await form.getByLabel("Precio", { exact: true }).fill("1250,50");
    await form.getByRole("button", { name: "Guardar" }).click();
    await expect
      .poll(() => manager.textContent(".product-editor [role=status]"))
      .toContain("los decimales van con punto");
    await form.getByLabel("Precio", { exact: true }).fill("1,250.50");
    await form.getByRole("button", { name: "Guardar" }).click();
    await expect.poll(() => manager.locator("tr", { hasText: "CAFE-1" }).textContent()).toContain("RD$1,250.50");
    const products = await asIssuer<{ items: { code: string; price: string }[] }>("GET", "/products");
    expect(products.items.find((p) => p.code === "CAFE-1")?.price).toBe("1250.50");
    expect((await tillCatalogue()).products.find((p) => p.code === "CAFE-1")?.price).toBe("1250.50");
  });

  it("creates a cashier with a PIN; the till signs the cashier in with it, not with another", async () => {
    const form = manager.getByRole("form", { name: "Nuevo cajero" });
    await form.getByLabel("Nombre").fill("Luis Gómez");
    await form.getByLabel("PIN (6 dígitos)").fill("482913");
    await form.getByRole("button", { name: "Crear cajero" }).click();
    // The worker hashes the PIN with scrypt (16 MiB, about a second on a loaded machine).
    await expect
      .poll(() => manager.locator("table:has(caption:text-is('Cajeros'))").textContent(), { timeout: 30_000 })
      .toContain("Luis Gómez");
    expect(await manager.textContent("main")).not.toContain("482913");
    const cashier = (await tillCatalogue()).cashiers.find((c) => c.name === "Luis Gómez");
    expect(cashier?.active).toBe(true);
    // The till's own offline check (pos-client/src/shift/pin.ts) with the hash the catalogue gave it.
    expect(await pinHashMatches(cashier!.pin, "482913")).toBe(true);
    expect(await pinHashMatches(cashier!.pin, "482914")).toBe(false);
  });

  it("revokes a till: its device token is refused afterwards", async () => {
    expect(await tillSees(deviceToken)).toBe(200);
    manager.once("dialog", (dialog) => void dialog.accept());
    await manager.getByRole("button", { name: "Revocar Caja Norte" }).click();
    await expect.poll(() => manager.locator("tr", { hasText: "Caja Norte" }).textContent()).toContain("Revocada");
    expect(await manager.getByRole("button", { name: "Revocar Caja Norte" }).count()).toBe(0);
    expect(await tillSees(deviceToken)).toBe(401);
    const pull = await fetch(`${world.stack.workerUrl}/devices/catalog?since=0`, {
      headers: { Authorization: `Bearer ${deviceToken}` },
    });
    expect(pull.status).toBe(401);
  });
});
