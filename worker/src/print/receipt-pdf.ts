// The RI of an issued receipt, made from the signed XML and kept beside it in R2: a PDF is
// immutable like the XML it represents, so a stored one is served as is. It is made when first
// asked for (a GET, or the e-mail to a buyer), never on the issuing path: rendering costs more CPU
// than the rest of issuing, and most receipts are never printed from here.
import { type JsonDocument, xmlToEcf } from "@ecf/shared";
import { receiptShortUrl } from "@ecf/shared/receipt-link";
import { archiveImmutable } from "../archive/r2.ts";
import { ApiProblem } from "../errors/problem.ts";
import { findReceipt } from "../ledger/client.ts";
import type { Receipt } from "../ledger/rows.ts";
import type { PrintLayout, PrintOptions } from "./render.ts";

/** Receipts from point-of-sale devices print on the 80 mm roll; the rest on a sheet. */
export function defaultLayout(receipt: Pick<Receipt, "source">): PrintLayout {
  return receipt.source === "device" ? "roll80" : "a4";
}

/** `x.xml` → `x.pdf` for the default layout, `x.letter.pdf` etc. for the others. */
export function pdfKey(xmlKey: string, layout: PrintLayout, isDefault: boolean): string {
  return xmlKey.replace(/\.xml$/, "") + (isDefault ? ".pdf" : `.${layout}.pdf`);
}

/** The buyer's link printed on the receipt (PUBLIC_URL, wrangler.toml); the archive key starts with the issuer's RNC. */
export function consultaUrl(env: Env, receipt: Receipt): string {
  return receiptShortUrl(env.PUBLIC_URL, receipt.xmlKey.split("/")[0]!, receipt.encf, receipt.securityCode);
}

/** What the print module renders a receipt's RI from: its signed XML (from the archive) as JSON, and how. */
export async function printInput(
  env: Env,
  receipt: Receipt,
  layout: PrintLayout,
): Promise<{ document: JsonDocument; options: PrintOptions }> {
  const stored = await env.ARCHIVE.get(receipt.xmlKey);
  if (!stored)
    throw new ApiProblem("internal_error", {
      detail: `The signed XML of ${receipt.encf} is missing from the archive.`,
    });
  return {
    document: xmlToEcf(await stored.text()),
    options: {
      securityCode: receipt.securityCode,
      fechaHoraFirma: receipt.fechaHoraFirma,
      timbreUrl: receipt.timbreUrl,
      layout,
      consultaUrl: consultaUrl(env, receipt),
    },
  };
}

/** Renders a receipt's RI in `layout` from its signed XML in the archive. */
async function render(env: Env, receipt: Receipt, layout: PrintLayout): Promise<Uint8Array> {
  const { document, options } = await printInput(env, receipt, layout);
  // Loaded on the first render, not when the worker starts (its QR encoder, fonts and deflate: cold-start.bench.ts).
  const { renderReceiptPdf } = await import("./render.ts");
  return renderReceiptPdf(document, options);
}

/**
 * Renders and archives a receipt's PDF with the archive's immutable write (like its XML, kept
 * for 10 years). The first stored PDF is the record: if another render got there first (the
 * two GETs racing), its bytes are returned, never overwritten.
 */
export async function storeReceiptPdf(
  env: Env,
  receipt: Receipt,
  layout: PrintLayout = defaultLayout(receipt),
): Promise<Uint8Array> {
  const key = pdfKey(receipt.xmlKey, layout, layout === defaultLayout(receipt));
  const bytes = await render(env, receipt, layout);
  try {
    await archiveImmutable(env.ARCHIVE, key, bytes, "application/pdf");
    return bytes;
  } catch (error) {
    const stored = await env.ARCHIVE.get(key);
    if (!stored) throw error;
    return new Uint8Array(await stored.arrayBuffer());
  }
}

/** The stored PDF, or (none yet, or another layout) rendered and stored now. */
export async function receiptPdf(
  env: Env,
  companyId: string,
  encf: string,
  requested: PrintLayout | undefined,
): Promise<{ bytes: ArrayBuffer | Uint8Array; receipt: Receipt }> {
  const receipt = await findReceipt(env, companyId, encf);
  if (!receipt) throw new ApiProblem("not_found", { detail: `No receipt ${encf} for this issuer.` });
  const layout = requested ?? defaultLayout(receipt);
  const stored = await env.ARCHIVE.get(pdfKey(receipt.xmlKey, layout, layout === defaultLayout(receipt)));
  if (stored) return { bytes: await stored.arrayBuffer(), receipt };
  return { bytes: await storeReceiptPdf(env, receipt, layout), receipt };
}
