// The PDF file around the RI's pages (pdf-file.ts), read back by an independent reader (pdf-lib's
// parser) and by poppler: its pages, sizes, fonts and document information are what the renderer
// meant, each page's content stream inflates to exactly what content-stream.ts wrote, and the
// cross-reference table points at every object.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { ecfToXml, parseDgiiDateTime, type TipoeCF, xmlToEcf } from "@ecf/shared";
import { makeEcf } from "@ecf/shared/test-support/ecf-factories";
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from "pdf-lib";
import { afterAll, describe, expect, it } from "vitest";
import { PdfFile, PdfString, name, writeValue } from "../src/print/pdf-file.ts";
import { printable } from "../src/print/pdf-text.ts";
import { type PrintLayout, renderPages, renderReceiptPdf } from "../src/print/render.ts";

const dir = mkdtempSync(join(tmpdir(), "ecf-pdf-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

/** Checks the cross-reference table against the bytes: every entry is the offset of its object. */
function checkCrossReferences(bytes: Uint8Array): number {
  const text = latin1(bytes);
  expect(text.startsWith("%PDF-1.7\n%")).toBe(true);
  // The binary comment: bytes above 127, so transfers treat the file as binary.
  expect([...bytes.subarray(10, 14)].every((b) => b > 127)).toBe(true);
  const tail = /startxref\n(\d+)\n%%EOF$/.exec(text);
  expect(tail).not.toBeNull();
  const xrefAt = Number(tail![1]);
  expect(text.slice(xrefAt, xrefAt + 5)).toBe("xref\n");
  const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(text.slice(xrefAt))!;
  expect(Number(first)).toBe(0);
  const entries = text
    .slice(xrefAt)
    .split("\n")
    .slice(2, 2 + Number(count));
  expect(entries[0]).toBe("0000000000 65535 f ");
  entries.slice(1).forEach((entry, i) => {
    expect(entry).toMatch(/^\d{10} 00000 n $/);
    const offset = Number(entry.slice(0, 10));
    expect(text.slice(offset, offset + `${i + 1} 0 obj\n`.length)).toBe(`${i + 1} 0 obj\n`);
  });
  expect(text).toContain(`trailer\n<<\n/Size ${count}\n/Root `);
  return Number(count);
}

/** pdfinfo's report; poppler says "Syntax Error" on stderr for a damaged file it has to repair. */
function pdfinfo(bytes: Uint8Array): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  const run = spawnSync("pdfinfo", [file], { encoding: "utf8" });
  expect(run.status).toBe(0);
  expect(run.stderr).toBe("");
  return run.stdout;
}

const cases: [TipoeCF, number, PrintLayout, boolean][] = [];
for (const tipo of ["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"] as TipoeCF[]) {
  for (const layout of ["a4", "letter", "roll80"] as PrintLayout[])
    cases.push([tipo, tipo === "31" ? 140 : tipo === "32" ? 70 : 3, layout, tipo === "33"]);
}

describe("the RI's PDF file", () => {
  it.each(cases)(
    "E%s with %d lines on %s (tricky text: %s): pages, fonts, information and content streams as rendered",
    async (tipo, lines, layout, trickyText) => {
      const doc = xmlToEcf(
        ecfToXml(
          makeEcf(tipo, { lines, trickyText, ...(tipo === "33" || tipo === "34" ? { codigoModificacion: "3" } : {}) }),
        ),
      );
      const options = {
        securityCode: "Ab3+x/",
        fechaHoraFirma: doc.FechaHoraFirma as string,
        timbreUrl: `https://ecf.dgii.gov.do/testecf/ConsultaTimbre?ENcf=E${tipo}`,
        layout,
      };
      const bytes = await renderReceiptPdf(doc, options);
      const expected = renderPages(doc, options);
      const objects = checkCrossReferences(bytes);
      // Page tree, catalog, information, two fonts, then a page and its content stream per page.
      expect(objects).toBe(1 + 5 + 2 * expected.length);
      expect(pdfinfo(bytes)).toMatch(new RegExp(`Pages:\\s+${expected.length}\\n`));

      const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
      const pages = pdf.getPages();
      expect(pages.length).toBe(expected.length);
      if (layout !== "roll80" && lines > 50) expect(pages.length).toBeGreaterThan(1);
      pages.forEach((page, i) => {
        const { width, height } = page.getMediaBox();
        expect([width, height]).toEqual([expected[i]!.width, expected[i]!.height]);
        const fonts = page.node.Resources()!.lookup(PDFName.of("Font"), PDFDict);
        const font = (key: string) => {
          const dict = fonts.lookup(PDFName.of(key), PDFDict);
          return Object.fromEntries(
            ["Type", "Subtype", "BaseFont", "Encoding"].map((k) => [k, dict.get(PDFName.of(k))?.toString()]),
          );
        };
        expect(font("F1")).toEqual({
          Type: "/Font",
          Subtype: "/Type1",
          BaseFont: "/Helvetica",
          Encoding: "/WinAnsiEncoding",
        });
        expect(font("F2")).toEqual({
          Type: "/Font",
          Subtype: "/Type1",
          BaseFont: "/Helvetica-Bold",
          Encoding: "/WinAnsiEncoding",
        });
        const contents = page.node.Contents();
        expect(contents).toBeInstanceOf(PDFRawStream);
        const stream = contents as PDFRawStream;
        expect(stream.dict.get(PDFName.of("Filter"))?.toString()).toBe("/FlateDecode");
        expect(inflateSync(stream.contents).toString("latin1")).toBe(
          Buffer.from(expected[i]!.content.bytes()).toString("latin1"),
        );
      });

      const e = doc.Encabezado as Record<string, Record<string, string>>;
      expect(pdf.getTitle()).toMatch(new RegExp(` ${e.IdDoc!.eNCF}$`));
      expect(pdf.getAuthor()).toBe(printable(e.Emisor!.RazonSocialEmisor!));
      expect(pdf.getProducer()).toBe("ecf-edge");
      expect(pdf.getCreator()).toBe("ecf-edge");
      const signed = parseDgiiDateTime(doc.FechaHoraFirma as string)!;
      expect(pdf.getCreationDate()).toEqual(signed);
      expect(pdf.getModificationDate()).toEqual(signed);

      // Reproducible: the archived PDF is a function of its XML.
      expect(Buffer.from(await renderReceiptPdf(doc, options)).equals(Buffer.from(bytes))).toBe(true);
    },
  );
});

describe("PDF syntax", () => {
  it("writes text strings as UTF-16BE with a byte-order mark, in hex", () => {
    expect(PdfString.text("ecf").toString()).toBe("<FEFF006500630066>");
    expect(PdfString.text("Peña €").toString()).toBe("<FEFF0050006500F10061002020AC>");
    expect(PdfString.text("🙂").toString()).toBe("<FEFFD83DDE42>");
  });

  it("escapes literal strings and writes dates to the second in UTC", () => {
    expect(PdfString.literal("a(b)c\\d").toString()).toBe("(a\\(b\\)c\\\\d)");
    expect(PdfString.literal("ñ\n").toString()).toBe("(\\361\\012)");
    expect(() => PdfString.literal("€")).toThrow(RangeError);
    expect(PdfString.date(new Date(Date.UTC(2025, 0, 2, 3, 4, 5))).toString()).toBe("(D:20250102030405Z)");
    expect(PdfString.date(new Date(0)).toString()).toBe("(D:19700101000000Z)");
  });

  it("writes numbers in full without exponents, names escaped, arrays and dictionaries as pdf-lib lays them out", () => {
    expect(writeValue([0, 0, 226.7716535433071, -1.5, 1e-7, true])).toBe(
      "[ 0 0 226.7716535433071 -1.5 0.0000001 true ]",
    );
    expect(writeValue(name("A B#(x)"))).toBe("/A#20B#23#28x#29");
    expect(writeValue({ Type: name("Page"), Skipped: undefined, Kids: [], Nested: { Count: 2 } })).toBe(
      "<<\n/Type /Page\n/Kids [ ]\n/Nested <<\n/Count 2\n>>\n>>",
    );
  });

  it("writes a file any reader opens: strings round-trip through pdf-lib, the xref through poppler", async () => {
    const file = new PdfFile();
    const pages = file.reserve();
    const catalog = file.add({ Type: name("Catalog"), Pages: pages });
    const title = "Año (2025) \\ “Crédito” 🙂";
    const info = file.add({
      Title: PdfString.text(title),
      Author: PdfString.text("ASCII only"),
      Subject: PdfString.literal("(balanced) and ) not"),
    });
    const leaf = file.reserve();
    const content = file.addStream(
      { Filter: name("FlateDecode") },
      new Uint8Array(deflateSync(new TextEncoder().encode("0 0 m 10 10 l S\n"), { level: 1 })),
    );
    file.set(leaf, { Type: name("Page"), Parent: pages, MediaBox: [0, 0, 100.5, 200], Contents: content });
    file.set(pages, { Type: name("Pages"), Kids: [leaf], Count: 1 });
    const bytes = file.bytes({ root: catalog, info });
    expect(checkCrossReferences(bytes)).toBe(6);
    expect(pdfinfo(bytes)).toMatch(/Page size:\s+100.5 x 200 pts/);
    const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(pdf.getTitle()).toBe(title);
    expect(pdf.getAuthor()).toBe("ASCII only");
    expect(pdf.getSubject()).toBe("(balanced) and ) not");
    expect(execFileSync("pdftotext", ["-", "-"], { input: bytes }).toString()).toBe("\f");
  });

  it("refuses to write an object it reserved but never set", () => {
    const file = new PdfFile();
    const root = file.reserve();
    expect(() => file.bytes({ root })).toThrow(/reserved but never set/);
  });
});
