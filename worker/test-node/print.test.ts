// The printed representation, checked the way a person would: render the PDF to an image with
// poppler (pdftoppm), decode the QR with zbar (zbarimg), read the text with pdftotext.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ecfToXml, timbreUrl, xmlToEcf, type TipoeCF } from "@ecf/shared";
import { afterAll, describe, expect, it } from "vitest";
import { makeEcf, type EcfFactoryOptions } from "@ecf/shared/test-support/ecf-factories";
import { pdfNumber, winAnsiHex } from "../src/print/content-stream.ts";
import { renderReceiptPdf, type PrintLayout } from "../src/print/render.ts";

const dir = mkdtempSync(join(tmpdir(), "ecf-print-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function render(name: string, pdf: Uint8Array) {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  execFileSync("pdftoppm", ["-r", "200", "-png", file, join(dir, name)]);
  const images = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith(".png"))
    .sort()
    .map((f) => join(dir, f));
  const text = execFileSync("pdftotext", [file, "-"]).toString("utf8");
  return { file, images, text };
}

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(image: string): { width: number; height: number } {
  const header = readFileSync(image).subarray(16, 24);
  return { width: header.readUInt32BE(0), height: header.readUInt32BE(4) };
}

/** Every QR zbarimg finds in the image (none is not an error). */
function decodeQr(image: string): string[] {
  try {
    return execFileSync("zbarimg", ["--raw", "-q", image])
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
  } catch (error) {
    if ((error as { status?: number }).status === 4) return []; // zbarimg: no symbol found
    throw error;
  }
}

/** Renders one region of one page (fractions of the page, origin top-left) and decodes it. */
function decodeRegion(
  file: string,
  pageNo: number,
  full: { width: number; height: number },
  region: { x: number; y: number; w: number; h: number },
): string[] {
  const out = join(dir, `region-${Math.random().toString(36).slice(2)}`);
  const px = (f: number, total: number) => String(Math.floor(f * total));
  execFileSync("pdftoppm", [
    "-r",
    "200",
    "-png",
    "-singlefile",
    "-f",
    String(pageNo),
    "-l",
    String(pageNo),
    "-x",
    px(region.x, full.width),
    "-y",
    px(region.y, full.height),
    "-W",
    px(region.w, full.width),
    "-H",
    px(region.h, full.height),
    file,
    out,
  ]);
  return decodeQr(`${out}.png`);
}

function timbreOf(doc: Record<string, unknown>, securityCode: string) {
  const e = doc.Encabezado as Record<string, Record<string, string>>;
  return timbreUrl({
    form: "consultatimbre",
    environment: "testecf",
    rncEmisor: e.Emisor!.RNCEmisor!,
    rncComprador: e.Comprador?.RNCComprador ?? null,
    encf: e.IdDoc!.eNCF!,
    fechaEmision: e.Emisor!.FechaEmision!,
    montoTotal: e.Totales!.MontoTotal!,
    fechaFirma: doc.FechaHoraFirma as string,
    codigoSeguridad: securityCode,
  });
}

const cases: [string, TipoeCF, EcfFactoryOptions, PrintLayout][] = [
  ["E31 on A4", "31", { lines: 4 }, "a4"],
  ["E31 on Letter with tricky text", "31", { lines: 2, trickyText: true }, "letter"],
  ["E32 on an 80 mm roll", "32", { lines: 5 }, "roll80"],
  ["E34 credit note on A4", "34", { lines: 2, codigoModificacion: "3" }, "a4"],
  ["E33 debit note on an 80 mm roll", "33", { lines: 2 }, "roll80"],
  ["E44 (exempt lines) on A4", "44", { lines: 3 }, "a4"],
  ["E31 with 70 lines (paginated) on Letter", "31", { lines: 70 }, "letter"],
];

describe("renderReceiptPdf", () => {
  it.each(cases)(
    "%s: the QR decodes to the timbre URL at the bottom left; the RI says what DGII asks",
    async (label, tipo, options, layout) => {
      // Through the XML and back, as the route does with the signed XML from R2.
      const doc = xmlToEcf(ecfToXml(makeEcf(tipo, options)));
      const securityCode = "Ab3+x/";
      const url = timbreOf(doc, securityCode);
      const pdf = await renderReceiptPdf(doc, {
        securityCode,
        fechaHoraFirma: doc.FechaHoraFirma as string,
        timbreUrl: url,
        layout,
      });
      expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe("%PDF-");

      const name = label.replace(/\W+/g, "-");
      const { file, images, text } = render(name, pdf);
      expect(images.length).toBeGreaterThan(0);
      images.forEach((image, i) => {
        // One QR per page, holding exactly the timbre URL...
        expect(decodeQr(image)).toEqual([url]);
        // ...in the bottom-left corner (§17.2.3): found there, and not in the rest of the page.
        const size = pngSize(image);
        const corner = layout === "roll80" ? { x: 0, y: 0.55, w: 0.6, h: 0.45 } : { x: 0, y: 0.75, w: 0.4, h: 0.25 };
        expect(decodeRegion(file, i + 1, size, corner)).toEqual([url]);
        expect(decodeRegion(file, i + 1, size, { x: 0, y: 0, w: 1, h: corner.y })).toEqual([]);
        expect(decodeRegion(file, i + 1, size, { x: corner.w, y: 0, w: 1 - corner.w, h: 1 })).toEqual([]);
      });

      const e = doc.Encabezado as Record<string, Record<string, string>>;
      const flat = text.replace(/\s+/g, " ");
      expect(flat).toContain(`e-NCF: ${e.IdDoc!.eNCF}`);
      expect(flat).toContain(`Código de Seguridad: ${securityCode}`);
      expect(flat).toContain(`Fecha de Firma Digital: ${doc.FechaHoraFirma}`);
      const words: Record<string, string> = {
        "31": "Factura de Crédito Fiscal Electrónica",
        "32": "Factura de Consumo Electrónica",
        "33": "Nota de Débito Electrónica",
        "34": "Nota de Crédito Electrónica",
        "44": "Regímenes Especiales Electrónico",
      };
      expect(flat).toContain(words[tipo]);
      if (tipo === "32" || tipo === "34") expect(flat).not.toContain("Fecha Vencimiento");
      else expect(flat).toContain(`Fecha Vencimiento: ${e.IdDoc!.FechaVencimientoSecuencia}`);
      if (tipo === "33" || tipo === "34") {
        const ref = doc.InformacionReferencia as Record<string, string>;
        expect(flat).toContain(`e-NCF Modificado: ${ref.NCFModificado}`);
        expect(flat).toContain(tipo === "34" ? "Corrige montos del NCF modificado" : "Código de Modificación:");
      }
      if (tipo === "44") expect(flat).toMatch(/E Producto 1/);
      else expect(flat).not.toMatch(/\bE Producto/);
      expect(flat).toContain("Total");
      expect(flat).toContain(e.Emisor!.RNCEmisor);
      if (options.trickyText) expect(flat).toContain("Comercial Peña & Asociados");
      // The buyer block (§17.2.2): name and RNC of the client, when the document has a buyer.
      const comprador = e.Comprador as Record<string, string> | undefined;
      if (comprador?.RazonSocialComprador)
        expect(flat).toContain(`Razón Social Cliente: ${comprador.RazonSocialComprador}`);
      if (comprador?.RNCComprador) expect(flat).toContain(`RNC Cliente: ${comprador.RNCComprador}`);
      if (tipo === "31") expect(comprador?.RNCComprador).toBeTruthy();
      if ((options.lines ?? 0) > 50) {
        expect(images.length).toBeGreaterThan(1);
        const pages = images.map((_, i) =>
          execFileSync("pdftotext", ["-layout", "-f", String(i + 1), "-l", String(i + 1), file, "-"])
            .toString("utf8")
            .replace(/\s+/g, " "),
        );
        const cents = (page: string, label: string) => {
          const m = new RegExp(`${label} ([\\d,]+)\\.(\\d{2})`).exec(page);
          return m ? Number(m[1]!.replace(/,/g, "")) * 100 + Number(m[2]) : undefined;
        };
        pages.forEach((page, i) => {
          expect(page).toContain(`Página No. ${i + 1} de ${pages.length}`);
          if (i === pages.length - 1) {
            // Footnote 56: the last page holds the document's totals, not page subtotals.
            expect(page).not.toMatch(
              /Página (Subtotal|Monto)|Subtotal (Gravado|ITBIS|Exento) Página|Monto Total Página/,
            );
            expect(page).toContain("Total ITBIS");
            return;
          }
          const gravado = cents(page, "Subtotal Gravado Página")!;
          const itbis = cents(page, "Subtotal ITBIS Página")!;
          const total = cents(page, "Monto Total Página")!;
          expect(gravado).toBeGreaterThan(0);
          // The factory's lines are taxed at 18 %, amounts without ITBIS.
          expect(itbis).toBe(Math.round(gravado * 0.18));
          expect(total).toBe(gravado + itbis + (cents(page, "Subtotal Exento Página") ?? 0));
        });
      }
    },
  );

  it("sizes the roll to its content and keeps sheets at A4 and Letter", async () => {
    const doc = xmlToEcf(ecfToXml(makeEcf("32", { lines: 3 })));
    const base = {
      securityCode: "ABCDEF",
      fechaHoraFirma: "01-04-2025 10:15:00",
      timbreUrl:
        "https://fc.dgii.gov.do/testecf/consultatimbrefc?RncEmisor=130862346&ENCF=E320000000001&MontoTotal=1.00&CodigoSeguridad=ABCDEF",
    };
    const sizes: Record<string, string> = {};
    for (const layout of ["a4", "letter", "roll80"] as const) {
      const file = join(dir, `size-${layout}.pdf`);
      writeFileSync(file, await renderReceiptPdf(doc, { ...base, layout }));
      sizes[layout] = /Page size:\s+([\d.]+ x [\d.]+)/.exec(execFileSync("pdfinfo", [file]).toString())![1]!;
    }
    expect(sizes.a4).toBe("595.28 x 841.89");
    expect(sizes.letter).toBe("612 x 792");
    const [rollWidth, rollHeight] = sizes.roll80!.split(" x ").map(Number);
    expect(rollWidth).toBeCloseTo(226.77, 1); // 80 mm
    expect(rollHeight).toBeGreaterThan(200);
    expect(rollHeight).toBeLessThan(842);
  });

  it("renders the same receipt to the same bytes (the archived PDF is a function of its XML)", async () => {
    const doc = xmlToEcf(ecfToXml(makeEcf("31", { lines: 3 })));
    const options = {
      securityCode: "ABCDEF",
      fechaHoraFirma: doc.FechaHoraFirma as string,
      timbreUrl: timbreOf(doc, "ABCDEF"),
      layout: "a4" as const,
    };
    expect(
      Buffer.from(await renderReceiptPdf(doc, options)).equals(Buffer.from(await renderReceiptPdf(doc, options))),
    ).toBe(true);
  });

  it("prints every WinAnsi character as itself (Latin-1 and the 0x80-0x9F extras) and anything else as ?", async () => {
    const doc = xmlToEcf(ecfToXml(makeEcf("32", { lines: 2 })));
    // Two short descriptions: each fits its column on one line, so pdftotext reads it whole.
    const lines = ["Pieza ñÑ áéíóú ¿¡ ü € “x” ‘y’", "– — … • ™ Š Œ ž Ÿ (a\\b) 漢 🙂"];
    const items = doc.DetallesItems as Record<string, unknown>[];
    lines.forEach((line, i) => {
      items[i]!.NombreItem = line;
    });
    const pdf = await renderReceiptPdf(doc, {
      securityCode: "ABCDEF",
      fechaHoraFirma: doc.FechaHoraFirma as string,
      timbreUrl: timbreOf(doc, "ABCDEF"),
      layout: "a4",
    });
    const flat = render("winansi", pdf).text.replace(/\s+/g, " ");
    expect(flat).toContain(lines[0]);
    expect(flat).toContain("– — … • ™ Š Œ ž Ÿ (a\\b) ? ?");
  });
});

describe("the buyer's link beside the QR", () => {
  const link = "http://127.0.0.1:8787/r/131880681E310000000001Ab3-9Z";
  it.each(["a4", "letter", "roll80"] as const)(
    "%s: the link is printed whole beside DGII's QR, which still holds the timbre alone",
    async (layout) => {
      const doc = xmlToEcf(ecfToXml(makeEcf("31", { lines: 2 })));
      const url = timbreOf(doc, "ABCDEF");
      const pdf = await renderReceiptPdf(doc, {
        securityCode: "ABCDEF",
        fechaHoraFirma: doc.FechaHoraFirma as string,
        timbreUrl: url,
        layout,
        consultaUrl: link,
      });
      const { images, text } = render(`link-${layout}`, pdf);
      const [, after] = text.split("Consulte su comprobante en:");
      expect(after, text).toBeDefined();
      expect(after!.replace(/\s+/g, "")).toContain(link);
      expect(text).not.toContain("Enlace consulta proveedor");
      expect(decodeQr(images[0]!)).toEqual([url]);
    },
  );

  it("under envío diferido it carries DGII's words: Enlace consulta proveedor electrónico", async () => {
    const doc = xmlToEcf(ecfToXml(makeEcf("31", { lines: 1 })));
    (doc.Encabezado as { IdDoc: Record<string, unknown> }).IdDoc.IndicadorEnvioDiferido = "1";
    const pdf = await renderReceiptPdf(doc, {
      securityCode: "ABCDEF",
      fechaHoraFirma: doc.FechaHoraFirma as string,
      timbreUrl: timbreOf(doc, "ABCDEF"),
      layout: "a4",
      consultaUrl: link,
    });
    const { text } = render("link-diferido", pdf);
    const [, after] = text.split("Enlace consulta proveedor electrónico:");
    expect(after, text).toBeDefined();
    expect(after!.replace(/\s+/g, "")).toContain(link);
  });
});

describe("content stream text and numbers", () => {
  it.each([
    ["ABC", "<414243>"],
    ["ñ€—", "<F18097>"],
    ["(", "<28>"],
    ["漢", "<3F>"],
  ])("winAnsiHex(%j) is %s", (text, hex) => expect(winAnsiHex(text)).toBe(hex));

  it.each([
    [12, 3, "12"],
    [56.69291338582678, 3, "56.693"],
    [-0.0001, 3, "0"],
    [0.45, 3, "0.45"],
    [1.2433035714285714, 6, "1.243304"],
    [-3.5, 3, "-3.5"],
  ])("pdfNumber(%d, %d) is %s", (value, decimals, text) => expect(pdfNumber(value, decimals)).toBe(text));
});
