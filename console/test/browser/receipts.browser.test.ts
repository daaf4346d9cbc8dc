// The console's receipts and monthly pages in Chromium against the real stack (wrangler dev + the
// DGII sandbox and its mail sink): an E34 from a receipt's page with DGII's balance rule (the
// balance drops, more than what is left is refused with the rule's words), the receipt's timeline
// and its e-mail resent, unused numbers voided with DGII, the filters of Comprobantes, the 607, 608
// and the month's archive downloaded, and a user of two companies switching between them.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Download, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A,
  accept,
  B,
  BUYER,
  cliInvitation,
  go,
  PASSWORD,
  startWorld,
  stopWorld,
  supplierInvoice,
  type World,
} from "./console-world.ts";

let world: World;
let owner: Page;
/** What one step leaves for the next (one story, in order). */
const story: { invoice?: string; credit?: string; chosen?: string; consumo?: string; voided?: string[] } = {};

beforeAll(async () => {
  world = await startWorld();
}, 300_000);

afterAll(() => stopWorld(world));

/** Today in Santo Domingo (UTC−4, no daylight saving), shifted by `days`, as dd-MM-yyyy. */
function sdDay(days = 0): string {
  const t = new Date(Date.now() - 4 * 3_600_000 + days * 86_400_000);
  return `${String(t.getUTCDate()).padStart(2, "0")}-${String(t.getUTCMonth() + 1).padStart(2, "0")}-${t.getUTCFullYear()}`;
}

/** Issues with A's API key (what the till or a back office would): the answer's body. */
async function issueAsA(body: unknown): Promise<{ encf: string; estado: string }> {
  const res = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
    method: "POST",
    headers: { Authorization: `Bearer ${world.tokenA}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { encf: string; estado: string };
  expect(answer.estado, JSON.stringify(answer)).toBe("Aceptado");
  return answer;
}

/** The rows (their e-NCF) of the receipts table as shown. */
async function listed(page: Page): Promise<string[]> {
  const cells = await page.locator("main table").first().locator("tbody tr td:first-child").allTextContents();
  return cells.map((c) => c.trim()).sort();
}

/** Applies Comprobantes' filters (empty ones cleared) and waits for the list they give. */
async function filter(page: Page, f: { desde?: string; hasta?: string; tipo?: string; comprador?: string }) {
  // Through Hoy, so the form filled is the freshly rendered one, not the previous list's.
  await go(world, page, "#/hoy", "Hoy");
  await go(world, page, "#/comprobantes", "Comprobantes");
  await page.getByLabel("Desde").fill(f.desde ?? "");
  await page.getByLabel("Hasta").fill(f.hasta ?? "");
  await page.getByLabel("Tipo").selectOption(f.tipo ?? "");
  await page.getByLabel("Comprador").fill(f.comprador ?? "");
  await page.getByRole("button", { name: "Filtrar" }).click();
}

async function saved(page: Page, click: () => Promise<void>): Promise<{ file: Download; path: string }> {
  const download = page.waitForEvent("download");
  await click();
  const file = await download;
  return { file, path: (await file.path())! };
}

describe("Comprobantes and Mensual", () => {
  it("the owner issues an E31 by hand and its page shows the whole total as the balance open to credit notes", async () => {
    ({ page: owner } = await accept(world, cliInvitation(world, A.rnc, "socio@grupo.do"), A.name, "Dueño"));
    await go(world, owner, "#/emitir/31", "Emitir E31 Crédito Fiscal");
    await owner.getByLabel("RNC del comprador").fill(BUYER.rnc);
    await owner.getByLabel("RNC del comprador").press("Tab");
    await expect.poll(() => owner.getByLabel("Razón social del comprador").inputValue()).toBe(BUYER.name);
    await owner.getByLabel("Descripción").fill("Servicio de consultoría");
    await owner.getByLabel("Cantidad").fill("2");
    await owner.getByLabel("Precio unitario").fill("1000.00");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    const heading = owner.getByRole("heading", { level: 1 });
    await expect.poll(() => heading.textContent(), { timeout: 60_000 }).toMatch(/^E31\d{10}/);
    story.invoice = (await heading.textContent())!.slice(0, 13);
    await expect.poll(() => owner.textContent("h1 .estado"), { timeout: 60_000 }).toBe("Aceptado");
    expect(await owner.textContent(".notes .balance")).toContain("Saldo disponible RD$2,360.00");
    expect(await owner.textContent(".notes")).toContain("Regla de la DGII");
  });

  it("an E34 for part of it lowers the balance; one for more than what is left is refused with the rule's words", async () => {
    await owner.getByRole("link", { name: "Nota de crédito (E34)" }).click();
    await owner.getByRole("heading", { name: "Emitir E34 Nota de Crédito", level: 1 }).waitFor();
    expect(await owner.textContent("p.balance")).toContain(`Sobre ${story.invoice}: Saldo disponible RD$2,360.00`);
    expect(await owner.getByLabel("Razón social del comprador").inputValue()).toBe(BUYER.name);
    await owner.getByLabel("Descripción").fill("Devolución parcial");
    await owner.getByLabel("Precio unitario").fill("500.00");
    await expect.poll(() => owner.textContent("p.total")).toContain("RD$590.00");
    expect(await owner.textContent("p.balance-check")).toBe("");
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    const heading = owner.getByRole("heading", { level: 1 });
    await expect.poll(() => heading.textContent(), { timeout: 60_000 }).toMatch(/^E34\d{10}/);
    story.credit = (await heading.textContent())!.slice(0, 13);
    await expect.poll(() => owner.textContent("h1 .estado"), { timeout: 60_000 }).toBe("Aceptado");

    await go(world, owner, `#/comprobantes/${story.invoice}`, story.invoice!);
    expect(await owner.textContent(".notes .balance")).toBe(
      "Saldo disponible RD$1,770.00 (total RD$2,360.00, notas de débito RD$0.00, notas de crédito RD$590.00).",
    );
    expect(await owner.textContent(".notes table")).toContain(story.credit);

    await owner.getByRole("link", { name: "Nota de crédito (E34)" }).click();
    await owner.getByRole("heading", { name: "Emitir E34 Nota de Crédito", level: 1 }).waitFor();
    expect(await owner.textContent("p.balance")).toContain("Saldo disponible RD$1,770.00");
    await owner.getByLabel("Descripción").fill("Devolución total");
    await owner.getByLabel("Precio unitario").fill("2000.00");
    // The console judges it with the shared rule before sending …
    await expect
      .poll(() => owner.textContent("p.balance-check"))
      .toBe("El crédito excede lo que resta del comprobante modificado (RD$1,770.00).");
    // … and the API, sent anyway, refuses it with the same rule (its problem shown).
    await owner.getByRole("button", { name: "Emitir", exact: true }).click();
    await expect
      .poll(() => owner.textContent("[role=status]"), { timeout: 30_000 })
      .toContain("El crédito excede lo que resta del comprobante modificado (1770.00)");
    expect(await owner.getByRole("heading", { level: 1 }).textContent()).toBe("Emitir E34 Nota de Crédito");
    const notes = await (
      await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf/${story.invoice}/notes`, {
        headers: { Authorization: `Bearer ${world.tokenA}` },
      })
    ).json();
    expect(notes).toMatchObject({ montoTotal: "2360.00", notes: [{ encf: story.credit, montoTotal: "590.00" }] });
  });

  it("the receipt's timeline, and its e-mail resent reaches the mail sink and the timeline", async () => {
    await go(world, owner, `#/comprobantes/${story.invoice}`, story.invoice!);
    const timeline = owner.locator("ol.timeline");
    expect(await timeline.textContent()).toContain("Firmado");
    expect(await timeline.textContent()).toMatch(/Enviado a la DGII \(trackId [^)]+\): Aceptado/);
    expect(await timeline.textContent()).toContain(`Nota de Crédito ${story.credit} aceptada: RD$590.00`);
    await owner.getByLabel("Reenviar por correo a").fill("compras@cliente.do");
    await owner.getByRole("button", { name: "Reenviar" }).click();
    await expect.poll(() => owner.textContent("[role=status]")).toContain("Correo en cola para compras@cliente.do");
    await expect
      .poll(
        async () => {
          const mail = (await (await fetch(`${world.stack.sandboxUrl}/__mail`)).json()) as {
            to: string[];
            attachments: { filename: string }[];
          }[];
          const sent = mail.find((m) => m.to.includes("compras@cliente.do"));
          return sent?.attachments.map((a) => a.filename).sort() ?? [];
        },
        { timeout: 60_000, interval: 500 },
      )
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining(`${story.invoice}.pdf`),
          expect.stringContaining(`${story.invoice}.xml`),
        ]),
      );
    await expect
      .poll(
        async () => {
          await owner.reload();
          await owner.getByRole("heading", { name: story.invoice, level: 1 }).waitFor();
          return owner.locator("ol.timeline").textContent();
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toContain("Correo a compras@cliente.do: sent");
  });

  it("numbers left unused are listed and voided with DGII (the ANECF reaches the sandbox)", async () => {
    // An e-NCF chosen by the client ahead of the sequence leaves the numbers before it unused.
    const chosen = `E31${String(Number(story.invoice!.slice(3)) + 5).padStart(10, "0")}`;
    const invoice = supplierInvoice();
    story.chosen = (
      await issueAsA({
        ...invoice,
        Encabezado: {
          ...invoice.Encabezado,
          IdDoc: { ...invoice.Encabezado.IdDoc, eNCF: chosen },
          Comprador: { RNCComprador: BUYER.rnc, RazonSocialComprador: BUYER.name },
        },
      })
    ).encf;
    expect(story.chosen).toBe(chosen);
    story.voided = [1, 2, 3, 4].map((n) => `E31${String(Number(story.invoice!.slice(3)) + n).padStart(10, "0")}`);
    const [first, , , last] = story.voided;
    await go(world, owner, "#/comprobantes", "Comprobantes");
    const card = owner.locator("article", { hasText: "Números sin usar por anular" });
    expect((await card.locator("tbody tr").allTextContents()).map((t) => t.trim())).toEqual([`E31${first}${last}`]);
    await card.getByRole("button", { name: "Anular con la DGII" }).click();
    await expect
      // DGII's answer to the signed ANECF, on a loaded machine, can take more than poll's default 5 s.
      .poll(() => owner.locator("article", { hasText: "Números sin usar" }).textContent(), { timeout: 60_000 })
      .toContain("Ninguno.");
    const received = (await (await fetch(`${world.stack.sandboxUrl}/__sandbox/received`)).json()) as {
      kind: string;
      rnc: string | null;
    }[];
    expect(received.filter((r) => r.kind === "anecf" && r.rnc === A.rnc)).toHaveLength(1);
  });

  it("Comprobantes filters by date (dd-MM-yyyy), type and buyer", async () => {
    const consumo = supplierInvoice();
    story.consumo = (
      await issueAsA({
        ...consumo,
        Encabezado: {
          IdDoc: { ...consumo.Encabezado.IdDoc, TipoeCF: "32" },
          Comprador: { RazonSocialComprador: "CONSUMIDOR FINAL" },
        },
      })
    ).encf;
    const all = [story.invoice!, story.credit!, story.chosen!, story.consumo].sort();
    await filter(owner, { desde: sdDay(), hasta: sdDay() });
    await expect.poll(() => listed(owner)).toEqual(all);
    await filter(owner, { desde: sdDay(1) });
    await expect.poll(() => owner.textContent("main table caption")).toBe("0 comprobantes");
    await filter(owner, { tipo: "34" });
    await expect.poll(() => listed(owner)).toEqual([story.credit]);
    await filter(owner, { tipo: "31", comprador: BUYER.rnc });
    await expect.poll(() => listed(owner)).toEqual([story.invoice!, story.chosen!].sort());
    await filter(owner, { comprador: BUYER.rnc, desde: sdDay() });
    await expect.poll(() => listed(owner)).toEqual([story.invoice!, story.credit!, story.chosen!].sort());
    // A date not written dd-MM-yyyy is named, not sent.
    await filter(owner, { desde: "2026-11-05" });
    await expect.poll(() => owner.textContent("main [role=alert]")).toContain("dd-MM-aaaa");
  });

  it("Hoy counts the month's receipts by state as the receipts report does", async () => {
    const desde = `01-${sdDay().slice(3)}`;
    const totalIn = async (estado: string) =>
      (
        (await (
          await fetch(`${world.stack.workerUrl}/reports/encf?Desde=${desde}&estado=${encodeURIComponent(estado)}`, {
            headers: { Authorization: `Bearer ${world.tokenA}` },
          })
        ).json()) as { total: number }
      ).total;
    const accepted = await totalIn("Aceptado");
    expect(accepted).toBeGreaterThanOrEqual(2); // the E31 and its E34 at least
    await go(world, owner, "#/hoy", "Hoy");
    await expect.poll(() => owner.locator(".tile.estado-ok strong").first().textContent()).toBe(String(accepted));
    // The failed deliveries fill in after the page shows (a receipt read each): none here.
    await expect.poll(() => owner.textContent("section.today > div:last-child")).toBe("Ninguna.");
    expect(await owner.locator("section.today [aria-busy]").count()).toBe(0);
    const anulados = await totalIn("Anulado");
    if (anulados) expect(await owner.textContent(".tiles")).toContain(`Anulado${anulados}`);
  });

  it("Mensual downloads the 607, the 608 and the month's archive, which opens and holds the receipt's XML", async () => {
    const period = `${sdDay().slice(6)}-${sdDay().slice(3, 5)}`;
    const yyyymm = period.replace("-", "");
    await go(world, owner, `#/mensual?periodo=${period}`, "Mensual");
    await expect.poll(() => owner.textContent("article:has(#f607)")).toContain("Completo");
    const f607 = await saved(owner, () =>
      owner
        .locator("article:has(#f607)")
        .getByRole("button", { name: /^Descargar DGII_F_607_/ })
        .click(),
    );
    expect(f607.file.suggestedFilename()).toBe(`DGII_F_607_${A.rnc}_${yyyymm}.TXT`);
    const txt607 = readFileSync(f607.path, "latin1");
    expect(txt607.split(/\r?\n/)[0]).toMatch(new RegExp(`^607\\|${A.rnc}\\|${yyyymm}\\|\\d+$`));
    expect(txt607).toContain(story.invoice);
    expect(txt607).toContain(story.credit);

    const f608 = await saved(owner, () =>
      owner
        .locator("article:has(#f608)")
        .getByRole("button", { name: /^Descargar DGII_F_608_/ })
        .click(),
    );
    expect(f608.file.suggestedFilename()).toBe(`DGII_F_608_${A.rnc}_${yyyymm}.TXT`);
    const lines608 = readFileSync(f608.path, "latin1").split(/\r?\n/);
    expect(lines608[0]).toBe(`608|${A.rnc}|${yyyymm}|${story.voided!.length}`);
    // Each number voided above, a gap in the sequence (08, "Errores en secuencia de NCF").
    for (const encf of story.voided!)
      expect(lines608).toContainEqual(expect.stringMatching(new RegExp(`^${encf}\\|\\d{8}\\|08$`)));

    const zip = await saved(owner, () =>
      owner.getByRole("button", { name: "Descargar el archivo del mes (ZIP)" }).click(),
    );
    expect(zip.file.suggestedFilename()).toBe(`archivo-${period}.zip`);
    execFileSync("unzip", ["-tq", zip.path]); // throws unless every entry's CRC checks
    const entries = execFileSync("unzip", ["-Z1", zip.path], { encoding: "utf8" }).split("\n");
    expect(entries.some((e) => e.startsWith("emitidos/") && e.endsWith(`${story.invoice}.xml`))).toBe(true);
    const xml = execFileSync("unzip", ["-p", zip.path, entries.find((e) => e.endsWith(`${story.invoice}.xml`))!]);
    expect(xml.toString("utf8")).toContain(`<eNCF>${story.invoice}</eNCF>`);
  });

  it("a user of two companies switches between them and sees each one's receipts only", async () => {
    const sent = await fetch(`${world.stack.workerUrl}/fe/recepcion/ecf`, {
      method: "POST",
      headers: { Authorization: `Bearer ${world.tokenB}`, "Content-Type": "application/json" },
      body: JSON.stringify(supplierInvoice()),
    });
    const ofB = ((await sent.json()) as { encf: string }).encf;
    // The same person, already A's owner, accepts B's invitation with its own password.
    await owner.goto(`${world.stack.workerUrl}${cliInvitation(world, B.rnc, "socio@grupo.do")}`);
    await expect.poll(() => owner.textContent(".invitation-company")).toContain(B.name);
    await owner.getByLabel("Contraseña nueva").fill(PASSWORD);
    await owner.getByRole("button", { name: "Aceptar y entrar" }).click();
    await owner.getByRole("heading", { name: "Hoy", level: 1 }).waitFor();
    const empresa = owner.getByLabel("Empresa");
    expect(await empresa.locator("option").allTextContents()).toEqual(
      expect.arrayContaining([`${A.name} (${A.rnc})`, `${B.name} (${B.rnc})`]),
    );
    await empresa.selectOption(B.rnc);
    await go(world, owner, "#/comprobantes", "Comprobantes");
    await expect.poll(() => listed(owner)).toEqual([ofB]);

    await owner.getByLabel("Empresa").selectOption(A.rnc);
    await expect
      .poll(() => listed(owner))
      .toEqual([story.invoice!, story.credit!, story.chosen!, story.consumo!].sort());
    expect(await owner.getByLabel("Empresa").inputValue()).toBe(A.rnc);
    // And back: B's list again, none of A's.
    await owner.getByLabel("Empresa").selectOption(B.rnc);
    await expect.poll(() => listed(owner)).toEqual([ofB]);
  });
});
