// The RI of an issued receipt, made once from the signed XML in R2 and kept beside it: a PDF is
// immutable like the XML it represents, so a stored one is served as is.
import { xmlToEcf } from "@ecf/shared";
import { and, eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { receipts } from "../db/schema.ts";
import { ApiProblem } from "../http/problem.ts";
import { renderReceiptPdf, type PrintLayout } from "./render.ts";

export type Receipt = typeof receipts.$inferSelect;

/** Receipts from point-of-sale devices print on the 80 mm roll; the rest on a sheet. */
export function defaultLayout(receipt: Pick<Receipt, "source">): PrintLayout {
  return receipt.source === "device" ? "roll80" : "a4";
}

/** `x.xml` → `x.pdf` for the default layout, `x.letter.pdf` etc. for the others. */
export function pdfKey(xmlKey: string, layout: PrintLayout, isDefault: boolean): string {
  return xmlKey.replace(/\.xml$/, "") + (isDefault ? ".pdf" : `.${layout}.pdf`);
}

export async function receiptPdf(env: Env, companyId: string, encf: string, requested: PrintLayout | undefined): Promise<{ bytes: ArrayBuffer | Uint8Array; receipt: Receipt }> {
  const receipt = await database(env.DB).query.receipts.findFirst({ where: and(eq(receipts.companyId, companyId), eq(receipts.encf, encf)) });
  if (!receipt) throw new ApiProblem("not_found", { detail: `No receipt ${encf} for this issuer.` });
  const layout = requested ?? defaultLayout(receipt);
  const key = pdfKey(receipt.xmlKey, layout, layout === defaultLayout(receipt));

  const stored = await env.ARCHIVE.get(key);
  if (stored) return { bytes: await stored.arrayBuffer(), receipt };

  const xml = await env.ARCHIVE.get(receipt.xmlKey);
  if (!xml) throw new ApiProblem("internal_error", { detail: `The signed XML of ${encf} is missing from the archive.` });
  const bytes = await renderReceiptPdf(xmlToEcf(await xml.text()), {
    securityCode: receipt.securityCode,
    fechaHoraFirma: receipt.fechaHoraFirma,
    timbreUrl: receipt.timbreUrl,
    layout,
  });
  // Two concurrent first requests render the same bytes; whichever put lands, the content is equal.
  await env.ARCHIVE.put(key, bytes, { httpMetadata: { contentType: "application/pdf" } });
  return { bytes, receipt };
}
