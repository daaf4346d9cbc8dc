// The RI of an issued receipt, made from the signed XML and kept beside it in R2: a PDF is
// immutable like the XML it represents, so a stored one is served as is. It is made in the
// background once the receipt is recorded, and on demand when a GET finds none.
import { xmlToEcf } from "@ecf/shared";
import { waitUntil } from "cloudflare:workers";
import { archiveImmutable } from "../archive/r2.ts";
import { ApiProblem } from "../http/problem.ts";
import { findReceipt } from "../ledger/client.ts";
import type { Receipt } from "../ledger/schema.ts";
import { renderReceiptPdf, type PrintLayout } from "./render.ts";

/** Receipts from point-of-sale devices print on the 80 mm roll; the rest on a sheet. */
export function defaultLayout(receipt: Pick<Receipt, "source">): PrintLayout {
  return receipt.source === "device" ? "roll80" : "a4";
}

/** `x.xml` → `x.pdf` for the default layout, `x.letter.pdf` etc. for the others. */
export function pdfKey(xmlKey: string, layout: PrintLayout, isDefault: boolean): string {
  return xmlKey.replace(/\.xml$/, "") + (isDefault ? ".pdf" : `.${layout}.pdf`);
}

/** Renders a receipt's RI in `layout` from its signed XML (read from R2 unless given). */
async function render(env: Env, receipt: Receipt, layout: PrintLayout, signedXml?: string): Promise<Uint8Array> {
  let xml = signedXml;
  if (xml === undefined) {
    const stored = await env.ARCHIVE.get(receipt.xmlKey);
    if (!stored) throw new ApiProblem("internal_error", { detail: `The signed XML of ${receipt.encf} is missing from the archive.` });
    xml = await stored.text();
  }
  return renderReceiptPdf(xmlToEcf(xml), {
    securityCode: receipt.securityCode,
    fechaHoraFirma: receipt.fechaHoraFirma,
    timbreUrl: receipt.timbreUrl,
    layout,
  });
}

/**
 * Renders and archives a receipt's PDF with the archive's immutable write (like its XML, kept
 * for 10 years). The first stored PDF is the record: if another render got there first (the
 * background one and a GET racing), its bytes are returned, never overwritten.
 */
export async function storeReceiptPdf(env: Env, receipt: Receipt, layout: PrintLayout = defaultLayout(receipt), signedXml?: string): Promise<Uint8Array> {
  const key = pdfKey(receipt.xmlKey, layout, layout === defaultLayout(receipt));
  const bytes = await render(env, receipt, layout, signedXml);
  try {
    await archiveImmutable(env.ARCHIVE, key, bytes, "application/pdf");
    return bytes;
  } catch (error) {
    const stored = await env.ARCHIVE.get(key);
    if (!stored) throw error;
    return new Uint8Array(await stored.arrayBuffer());
  }
}

/**
 * Called once a receipt is recorded: its PDF is made in the background (waitUntil), so every
 * issued receipt has one in the archive without anyone asking for it. A failure only logs: the
 * GET renders and stores it on demand.
 */
export function printInBackground(env: Env, receipt: Receipt, signedXml: string): void {
  waitUntil(
    storeReceiptPdf(env, receipt, defaultLayout(receipt), signedXml).catch((error: unknown) => {
      console.error(`background PDF of ${receipt.encf} failed:`, error);
    }),
  );
}

/** The stored PDF, or (none yet, or another layout) rendered and stored now. */
export async function receiptPdf(env: Env, companyId: string, encf: string, requested: PrintLayout | undefined): Promise<{ bytes: ArrayBuffer | Uint8Array; receipt: Receipt }> {
  const receipt = await findReceipt(env, companyId, encf);
  if (!receipt) throw new ApiProblem("not_found", { detail: `No receipt ${encf} for this issuer.` });
  const layout = requested ?? defaultLayout(receipt);
  const stored = await env.ARCHIVE.get(pdfKey(receipt.xmlKey, layout, layout === defaultLayout(receipt)));
  if (stored) return { bytes: await stored.arrayBuffer(), receipt };
  return { bytes: await storeReceiptPdf(env, receipt, layout), receipt };
}
