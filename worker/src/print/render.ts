/// <reference path="./pako.d.ts" />
// The printed representation (RI) of an e-CF as a PDF, after informe-tecnico §17 and DGII's
// illustrative models: a sheet layout (A4 or Letter, paginated, the header and the QR block on
// every page) and an 80 mm roll for point-of-sale receipts. Runs in workerd: each page's content
// stream is written directly (content-stream.ts), the file around them by pdf-file.ts, and text is
// measured with the standard fonts' generated metrics (font-metrics.ts).
import {
  add,
  dec,
  divide,
  formatMoney,
  isZero,
  parseDecimal,
  parseDgiiDateTime,
  percentOf,
  roundHalfUp,
  sub,
  type Decimal,
  type JsonDocument,
  ZERO,
} from "@ecf/shared";
import deflater from "pako/lib/deflate.js";
import { ContentStream, type FontKey, pdfNumber, winAnsiHex } from "./content-stream.ts";
import { fontMetrics, type StandardFontName } from "./font-metrics.ts";
import { name, PdfFile, type PdfRef, PdfString } from "./pdf-file.ts";
import { formatAmount, printable, wrap } from "./pdf-text.ts";
import { qrMatrix } from "./qr.ts";
import { receiptView, type ReceiptView } from "./receipt-view.ts";

export type PrintLayout = "a4" | "letter" | "roll80";

export interface PrintOptions {
  /** First 6 characters of SignatureValue. */
  securityCode: string;
  /** FechaHoraFirma, dd-MM-yyyy HH:mm:ss. */
  fechaHoraFirma: string;
  /** The URL the QR holds (timbreUrl from @ecf/shared). */
  timbreUrl: string;
  layout: PrintLayout;
  /** The receipt's public page for its buyer (its short link, shared/src/receipt-link.ts), printed beside the QR. */
  consultaUrl?: string;
}

const MM = 72 / 25.4;
const SHEETS = { a4: [595.28, 841.89], letter: [612, 792] } as const;
/** §17.2.3: at least 2 cm from the sheet's edge, at least 22 x 22 mm. */
const QR_EDGE = 20 * MM;
const QR_SIZE = 25 * MM;
const GREY = 0.45;

/** A standard font: the resource name the content streams use, and its metrics for layout. */
interface Font {
  key: FontKey;
  baseFont: StandardFontName;
  /** Width in points, kerning included (pdf-lib's metrics), as the layout has always measured. */
  widthOfTextAtSize(text: string, size: number): number;
}

interface Fonts {
  regular: Font;
  bold: Font;
}

/** The two standard fonts' metrics, loaded once per isolate: they do not depend on the receipt. */
let isolateFonts: Fonts | undefined;
function standardFonts(): Fonts {
  if (!isolateFonts) {
    const font = (key: FontKey, baseFont: StandardFontName): Font => {
      const metrics = fontMetrics(baseFont);
      return { key, baseFont, widthOfTextAtSize: (text, size) => metrics.widthOfTextAtSize(text, size) };
    };
    isolateFonts = { regular: font("F1", "Helvetica"), bold: font("F2", "Helvetica-Bold") };
  }
  return isolateFonts;
}

/** A page being drawn: its size and its content, written into the document at the end. */
export interface Page {
  width: number;
  height: number;
  content: ContentStream;
}

function newPage(width: number, height: number): Page {
  return { width, height, content: new ContentStream() };
}

function text(
  page: Page,
  value: string,
  x: number,
  y: number,
  font: Font,
  size: number,
  align: "left" | "right" = "left",
) {
  const t = printable(value);
  const dx = align === "right" ? font.widthOfTextAtSize(t, size) : 0;
  page.content.text(winAnsiHex(t), x - dx, y, font.key, size);
}

/**
 * Draws the QR with its quiet zone left blank; returns nothing, the caller reserved the space.
 * One path of rectangles, filled once: a drawRectangle per module cost ~1,000 graphics states
 * and 35 ms of a 46 ms A4 render.
 */
function drawQr(page: Page, url: string, x: number, y: number, size: number) {
  const qr = qrMatrix(url);
  const cell = size / qr.size;
  // Drawn in module units (integers: short to write and to compress), scaled to size by one matrix,
  // whose numbers keep six decimals: the scale is multiplied by the code's width in modules.
  let ops = `q 0 0 0 rg ${pdfNumber(cell, 6)} 0 0 ${pdfNumber(cell, 6)} ${pdfNumber(x, 6)} ${pdfNumber(y, 6)} cm
`;
  for (let row = 0; row < qr.size; row++) {
    // Each run of dark modules in a row is one rectangle, slightly overlapping the next row so
    // adjacent modules render without hairline gaps.
    const bottom = qr.size - row - 1;
    for (let col = 0; col < qr.size; col++) {
      if (!qr.dark(row, col)) continue;
      const start = col;
      while (col + 1 < qr.size && qr.dark(row, col + 1)) col++;
      ops += `${start} ${bottom} ${col - start + 1} 1.01 re
`;
    }
  }
  page.content.raw(`${ops}f Q
`);
}

/**
 * QR bottom-left, "Código de Seguridad" and "Fecha de Firma Digital" under it (§17.2.3), and
 * beside the QR the buyer's link to the issuer's page, in `width` points: under envío diferido
 * with the words of DGII's model (representacion-impresa §3, "Enlace consulta proveedor
 * electrónico"), else as an invitation to consult the receipt.
 */
function drawTimbre(
  page: Page,
  fonts: Fonts,
  view: ReceiptView,
  options: PrintOptions,
  x: number,
  bottom: number,
  width: number,
) {
  text(page, `Código de Seguridad: ${options.securityCode}`, x, bottom + 11, fonts.bold, 8);
  text(page, `Fecha de Firma Digital: ${options.fechaHoraFirma}`, x, bottom, fonts.regular, 8);
  drawQr(page, options.timbreUrl, x, bottom + 24, QR_SIZE);
  if (!options.consultaUrl) return;
  const left = x + QR_SIZE + 8;
  const label = view.envioDiferido ? "Enlace consulta proveedor electrónico:" : "Consulte su comprobante en:";
  const room = width - QR_SIZE - 8;
  const lines: [string, Font][] = [
    ...wrap(label, fonts.bold, 7, room).map((line): [string, Font] => [line, fonts.bold]),
    ...wrap(options.consultaUrl, fonts.regular, 7, room).map((line): [string, Font] => [line, fonts.regular]),
  ];
  lines.forEach(([line, font], i) => text(page, line, left, bottom + 17 + QR_SIZE - i * 9, font, 7));
}

const TIMBRE_HEIGHT = QR_SIZE + 24;

// ---------------------------------------------------------------- sheet (A4 / Letter)

function drawSheetHeader(page: Page, fonts: Fonts, view: ReceiptView, margin: number, width: number): number {
  const top = page.height - margin;
  const leftWidth = width * 0.55;
  const rightX = margin + leftWidth + 10;
  const rightWidth = width - leftWidth - 10;

  let y = top;
  const left = (value: string, font: Font, size: number) => {
    for (const line of wrap(value, font, size, leftWidth)) {
      y -= size + 3;
      text(page, line, margin, y, font, size);
    }
  };
  const e = view.emisor;
  if (e.nombreComercial) left(e.nombreComercial, fonts.bold, 12);
  left(e.razonSocial, e.nombreComercial ? fonts.regular : fonts.bold, e.nombreComercial ? 9 : 12);
  left(`RNC: ${e.rnc}`, fonts.regular, 9);
  if (e.direccion) left(e.direccion, fonts.regular, 9);
  const place = [e.municipio, e.provincia].filter(Boolean).join(", ");
  if (place) left(place, fonts.regular, 9);
  left(`Fecha de Emisión: ${e.fechaEmision}`, fonts.regular, 9);
  const leftBottom = y;

  y = top;
  const right = (value: string, font: Font, size: number) => {
    for (const line of wrap(value, font, size, rightWidth)) {
      y -= size + 3;
      text(page, line, rightX, y, font, size);
    }
  };
  right(view.tipoEnPalabras, fonts.bold, 11);
  right(`e-NCF: ${view.encf}`, fonts.bold, 10);
  if (view.fechaVencimiento) right(`Fecha Vencimiento: ${view.fechaVencimiento}`, fonts.regular, 9);
  if (view.ncfModificado) right(`e-NCF Modificado: ${view.ncfModificado}`, fonts.regular, 9);
  if (view.codigoModificacionEnPalabras)
    right(`Código de Modificación: ${view.codigoModificacionEnPalabras}`, fonts.regular, 9);

  y = Math.min(leftBottom, y) - 10;
  if (view.comprador) {
    y -= 12;
    text(page, `Razón Social Cliente: ${view.comprador.razonSocial ?? ""}`, margin, y, fonts.regular, 9);
    if (view.comprador.rnc) {
      y -= 12;
      text(page, `RNC Cliente: ${view.comprador.rnc}`, margin, y, fonts.regular, 9);
    }
  }
  y -= 8;
  page.content.line(margin, y, margin + width, y, 0.6, GREY);
  return y;
}

interface Column {
  title: string;
  width: number;
  align: "left" | "right";
}

function sheetColumns(width: number): Column[] {
  const fixed = [50, 60, 70, 60, 75];
  return [
    { title: "Cantidad", width: fixed[0]!, align: "right" },
    { title: "Descripción", width: width - fixed.reduce((a, b) => a + b, 0), align: "left" },
    { title: "Unidad", width: fixed[1]!, align: "left" },
    { title: "Precio", width: fixed[2]!, align: "right" },
    { title: "Descuento", width: fixed[3]!, align: "right" },
    { title: "Valor", width: fixed[4]!, align: "right" },
  ];
}

/** What a sheet's pages share (size, margins, columns, where the footer starts) and the pages made so far. */
interface Sheet {
  fonts: Fonts;
  view: ReceiptView;
  pageWidth: number;
  pageHeight: number;
  margin: number;
  width: number;
  footerTop: number;
  columns: Column[];
  pages: Page[];
  // §17.2.3: a paginated RI shows each page's subtotals (the page's lines, by ITBIS rate).
  subtotals: PageSums[];
}

function renderSheet(fonts: Fonts, view: ReceiptView, options: PrintOptions, layout: "a4" | "letter"): Page[] {
  const [pageWidth, pageHeight] = SHEETS[layout];
  const margin = QR_EDGE;
  const width = pageWidth - 2 * margin;
  const sheet: Sheet = {
    fonts,
    view,
    pageWidth,
    pageHeight,
    margin,
    width,
    footerTop: margin + TIMBRE_HEIGHT + 12,
    columns: sheetColumns(width),
    pages: [],
    subtotals: [],
  };

  let { page, y } = startSheetPage(sheet);
  for (const line of view.lines) {
    // §17.2.2: only the value "E", left of the description, marks an exempt line.
    const description = wrap(
      `${line.exento ? "E  " : ""}${line.descripcion}`,
      fonts.regular,
      8,
      sheet.columns[1]!.width - 6,
    );
    const height = description.length * 10 + 2;
    if (y - height < sheet.footerTop) ({ page, y } = startSheetPage(sheet));
    addToPageSums(sheet.subtotals[sheet.subtotals.length - 1]!, line);
    drawSheetLine(sheet, page, y, line, description);
    y -= height;
  }

  const totalsHeight = view.totals.length * 13 + 16;
  if (y - totalsHeight < sheet.footerTop) ({ page, y } = startSheetPage(sheet));
  drawSheetTotals(sheet, page, y);
  drawSheetFooters(sheet, options);
  return sheet.pages;
}

/** A new page with the header and the column titles; returns it and where its first line goes. */
function startSheetPage(sheet: Sheet): { page: Page; y: number } {
  const { fonts, margin, width } = sheet;
  const page = newPage(sheet.pageWidth, sheet.pageHeight);
  sheet.pages.push(page);
  sheet.subtotals.push({ byRate: { "1": ZERO, "2": ZERO, "3": ZERO }, exento: ZERO });
  let y = drawSheetHeader(page, fonts, sheet.view, margin, width) - 12;
  let x = margin;
  for (const c of sheet.columns) {
    text(page, c.title, c.align === "right" ? x + c.width - 4 : x, y, fonts.bold, 8, c.align);
    x += c.width;
  }
  y -= 4;
  page.content.line(margin, y, margin + width, y, 0.4, GREY);
  return { page, y: y - 2 };
}

/** Adds a line's amount to its page's sums: exempt, or by its ITBIS rate. */
function addToPageSums(sums: PageSums, line: ReceiptView["lines"][number]): void {
  const amount = parseDecimal(line.valor) ?? ZERO;
  if (line.exento) sums.exento = add(sums.exento, amount);
  else if (line.indicador === "1" || line.indicador === "2" || line.indicador === "3")
    sums.byRate[line.indicador] = add(sums.byRate[line.indicador], amount);
}

/** One item line in the columns, its description already wrapped; the other cells keep their first line. */
function drawSheetLine(
  sheet: Sheet,
  page: Page,
  y: number,
  line: ReceiptView["lines"][number],
  description: string[],
): void {
  const { fonts } = sheet;
  const cells = [
    line.cantidad,
    "",
    line.unidad,
    formatAmount(line.precio),
    line.descuento ? formatAmount(line.descuento) : "",
    formatAmount(line.valor),
  ];
  let x = sheet.margin;
  sheet.columns.forEach((c, i) => {
    if (i === 1) description.forEach((d, k) => text(page, d, x, y - 9 - k * 10, fonts.regular, 8));
    else
      text(
        page,
        wrap(cells[i]!, fonts.regular, 8, c.width - 6)[0]!,
        c.align === "right" ? x + c.width - 4 : x,
        y - 9,
        fonts.regular,
        8,
        c.align,
      );
    x += c.width;
  });
}

/** The document's totals under a rule, right-aligned, the Total in bold. */
function drawSheetTotals(sheet: Sheet, page: Page, y: number): void {
  const { fonts, margin, width } = sheet;
  y -= 8;
  page.content.line(margin, y, margin + width, y, 0.6, GREY);
  for (const [label, amount] of sheet.view.totals) {
    y -= 13;
    const font = label === "Total" ? fonts.bold : fonts.regular;
    text(page, label, margin + width - 180, y, font, 9);
    text(page, formatAmount(amount), margin + width - 4, y, font, 9, "right");
  }
}

/** Every page's timbre (QR block) and, when there are several pages, its number and subtotals. */
function drawSheetFooters(sheet: Sheet, options: PrintOptions): void {
  const { fonts, margin, width, pages } = sheet;
  pages.forEach((p, i) => {
    // Beside the QR, left of the page number and the page subtotals (right-aligned, 160 points).
    drawTimbre(p, fonts, sheet.view, options, margin, margin, width - 170);
    if (pages.length === 1) return;
    text(p, `Página No. ${i + 1} de ${pages.length}`, margin + width, margin, fonts.regular, 8, "right");
    // Footnote 56: the paging subtotals go on every page except the last, which holds the totals.
    if (i === pages.length - 1) return;
    const rows = pageSubtotals(sheet.subtotals[i]!, sheet.view);
    rows.forEach(([label, amount], k) => {
      const rowY = margin + 14 + (rows.length - 1 - k) * 11;
      text(p, label, margin + width - 160, rowY, fonts.regular, 8);
      text(p, formatAmount(formatMoney(amount)), margin + width, rowY, fonts.regular, 8, "right");
    });
  });
}

interface PageSums {
  /** Line amounts (MontoItem) by IndicadorFacturacion 1-3. */
  byRate: Record<"1" | "2" | "3", Decimal>;
  exento: Decimal;
}

/**
 * One page's subtotals as §17.2.3 lists them: Subtotal Gravado Página (taxed bases), Subtotal
 * Exento Página, Subtotal ITBIS Página and Monto total Página (their sum), each when it applies.
 * Line amounts that include ITBIS (IndicadorMontoGravado 1) are split into base and tax. The
 * additional taxes' per-line amounts are not in the XML, so a document with them gets no
 * "Monto total Página" rather than a wrong one.
 */
function pageSubtotals(sums: PageSums, view: ReceiptView): [string, Decimal][] {
  let gravado = ZERO;
  let itbis = ZERO;
  for (const rate of ["1", "2", "3"] as const) {
    const amount = sums.byRate[rate];
    if (isZero(amount)) continue;
    const percent = parseDecimal(view.itbisRates[rate]) ?? ZERO;
    if (view.montoGravadoIncluyeItbis) {
      const base = divide(amount, add(dec(1), percentOf(dec(1), percent)));
      gravado = add(gravado, base);
      itbis = add(itbis, sub(amount, base));
    } else {
      gravado = add(gravado, amount);
      itbis = add(itbis, roundHalfUp(percentOf(amount, percent)));
    }
  }
  const rows: [string, Decimal][] = [];
  if (!isZero(gravado)) rows.push(["Subtotal Gravado Página", gravado]);
  if (!isZero(sums.exento)) rows.push(["Subtotal Exento Página", sums.exento]);
  if (!isZero(gravado)) rows.push(["Subtotal ITBIS Página", itbis]);
  if (!view.tieneImpuestoAdicional) rows.push(["Monto Total Página", add(add(gravado, sums.exento), itbis)]);
  return rows;
}

// ---------------------------------------------------------------- 80 mm roll

function renderRoll(fonts: Fonts, view: ReceiptView, options: PrintOptions): Page[] {
  const pageWidth = 80 * MM;
  const margin = 4 * MM;
  const width = pageWidth - 2 * margin;
  type Row =
    | { text: string; font: Font; size: number; align: "left" | "right" | "split"; right?: string }
    | { rule: true };
  const rows: Row[] = [];
  const add = (value: string, font = fonts.regular, size = 8) => {
    for (const line of wrap(value, font, size, width)) rows.push({ text: line, font, size, align: "left" });
  };
  const split = (left: string, right: string, font = fonts.regular, size = 8) =>
    rows.push({ text: left, right, font, size, align: "split" });

  const e = view.emisor;
  if (e.nombreComercial) add(e.nombreComercial, fonts.bold, 10);
  add(e.razonSocial, fonts.bold, 9);
  add(`RNC: ${e.rnc}`);
  if (e.direccion) add(e.direccion);
  const place = [e.municipio, e.provincia].filter(Boolean).join(", ");
  if (place) add(place);
  add(`Fecha de Emisión: ${e.fechaEmision}`);
  rows.push({ rule: true });
  add(view.tipoEnPalabras, fonts.bold, 9);
  add(`e-NCF: ${view.encf}`, fonts.bold, 9);
  if (view.fechaVencimiento) add(`Fecha Vencimiento: ${view.fechaVencimiento}`);
  if (view.ncfModificado) add(`e-NCF Modificado: ${view.ncfModificado}`);
  if (view.codigoModificacionEnPalabras) add(`Código de Modificación: ${view.codigoModificacionEnPalabras}`);
  if (view.comprador) {
    add(`Razón Social Cliente: ${view.comprador.razonSocial ?? ""}`);
    if (view.comprador.rnc) add(`RNC Cliente: ${view.comprador.rnc}`);
  }
  rows.push({ rule: true });
  for (const line of view.lines) {
    add(`${line.exento ? "E  " : ""}${line.descripcion}`);
    split(
      `  ${line.cantidad} x ${formatAmount(line.precio)}${line.descuento ? ` - ${formatAmount(line.descuento)}` : ""}`,
      formatAmount(line.valor),
    );
  }
  rows.push({ rule: true });
  for (const [label, amount] of view.totals)
    split(label, formatAmount(amount), label === "Total" ? fonts.bold : fonts.regular, 9);

  const heightOf = (r: Row) => ("rule" in r ? 8 : r.size + 3);
  const contentHeight = rows.reduce((sum, r) => sum + heightOf(r), 0);
  const pageHeight = margin + contentHeight + 12 + TIMBRE_HEIGHT + margin;
  const page = newPage(pageWidth, pageHeight);
  let y = pageHeight - margin;
  for (const r of rows) {
    y -= heightOf(r);
    if ("rule" in r) {
      page.content.line(margin, y + 4, margin + width, y + 4, 0.4, GREY, [2, 2]);
    } else if (r.align === "split") {
      text(page, r.text, margin, y, r.font, r.size);
      text(page, r.right ?? "", margin + width, y, r.font, r.size, "right");
    } else {
      text(page, r.text, margin, y, r.font, r.size);
    }
  }
  drawTimbre(page, fonts, view, options, margin, margin, width);
  return [page];
}

function layOut(view: ReceiptView, options: PrintOptions): Page[] {
  const fonts = standardFonts();
  return options.layout === "roll80"
    ? renderRoll(fonts, view, options)
    : renderSheet(fonts, view, options, options.layout);
}

/** The RI's pages (size and content stream) as renderReceiptPdf writes them into the file. */
export function renderPages(document: JsonDocument, options: PrintOptions): Page[] {
  return layOut(receiptView(document), options);
}

/** The RI of an e-CF (its JSON document, as xmlToEcf returns it) as PDF bytes. */
export async function renderReceiptPdf(document: JsonDocument, options: PrintOptions): Promise<Uint8Array> {
  const view = receiptView(document);
  return writePdf(layOut(view, options), {
    when: options.fechaHoraFirma,
    title: `${view.tipoEnPalabras} ${view.encf}`,
    author: view.emisor.razonSocial,
  });
}

/**
 * Several RIs as one PDF, each receipt's pages after the previous one's: the single file DGII's
 * certification asks for (the simulation invoices' printed copies, under 10 MB).
 */
export async function renderReceiptsPdf(
  receipts: { document: JsonDocument; options: PrintOptions }[],
  title: string,
): Promise<Uint8Array> {
  const views = receipts.map((r) => ({ view: receiptView(r.document), options: r.options }));
  return writePdf(
    views.flatMap(({ view, options }) => layOut(view, options)),
    {
      when: views[views.length - 1]?.options.fechaHoraFirma ?? "",
      title,
      author: views[0]?.view.emisor.razonSocial ?? "",
    },
  );
}

/** The file around laid-out pages: catalog, information, the two standard fonts, each page. */
function writePdf(pages: Page[], meta: { when: string; title: string; author: string }): Uint8Array {
  const fonts = standardFonts();
  // Objects in the order pdf-lib numbered them (page tree, catalog, information, fonts, then each
  // page and its content), so a receipt renders to the bytes it rendered to with pdf-lib.
  const file = new PdfFile();
  const pageTree = file.reserve();
  const catalog = file.add({ Type: name("Catalog"), Pages: pageTree });
  // Fixed dates keep the bytes a function of the document: the stored PDF is reproducible.
  const when = PdfString.date(parseDgiiDateTime(meta.when) ?? new Date(0));
  const producer = PdfString.text("ecf-edge");
  const info = file.add({
    Producer: producer,
    ModDate: when,
    Creator: producer,
    CreationDate: when,
    Title: PdfString.text(meta.title),
    Author: PdfString.text(printable(meta.author)),
  });
  // The standard fonts need no embedding: a font dictionary naming them, shared by every page.
  const fontDict = (font: Font): PdfRef =>
    file.add({
      Type: name("Font"),
      Subtype: name("Type1"),
      BaseFont: name(font.baseFont),
      Encoding: name("WinAnsiEncoding"),
    });
  const resources = { Font: { [fonts.regular.key]: fontDict(fonts.regular), [fonts.bold.key]: fontDict(fonts.bold) } };
  const kids = pages.map((page) => {
    const leaf = file.reserve();
    // Deflate's fastest level: a quarter of the default's time, the page ~1 KB larger (of ~4).
    const contents = file.addStream(
      { Filter: name("FlateDecode") },
      deflater.deflate(page.content.bytes(), { level: 1 }),
    );
    file.set(leaf, {
      Type: name("Page"),
      Parent: pageTree,
      Resources: resources,
      MediaBox: [0, 0, page.width, page.height],
      Contents: contents,
    });
    return leaf;
  });
  file.set(pageTree, { Type: name("Pages"), Kids: kids, Count: kids.length });
  return file.bytes({ root: catalog, info });
}
