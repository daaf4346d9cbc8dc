// The simulation invoices' printed copies as the one PDF DGII's portal takes for step 5
// (Validación representación impresa): every invoice's RI, in the order named, in a single file
// under 10 MB, rendered by the print module exactly as each receipt prints on its own.
import type { Company } from "../db/tables.ts";
import { ApiProblem } from "../errors/problem.ts";
import { findReceipt } from "../ledger/client.ts";
import { defaultLayout, printInput } from "../print/receipt-pdf.ts";

/** DGII's portal refuses a larger file. */
export const PRINTED_COPIES_LIMIT = 10 * 1024 * 1024;

export async function printedCopiesPdf(env: Env, company: Company, encfs: string[]): Promise<Uint8Array> {
  const inputs = [];
  for (const encf of encfs) {
    const receipt = await findReceipt(env, company.id, encf);
    if (!receipt)
      throw new ApiProblem("not_found", {
        detail: `No receipt ${encf} for this issuer: name the simulation invoices it issued.`,
        errors: [
          {
            path: "/encf",
            code: "receipt_not_found",
            message: `No invoice ${encf} was issued by this company.`,
            messageEs: `Esta empresa no emitió la factura ${encf}.`,
          },
        ],
      });
    inputs.push(await printInput(env, receipt, defaultLayout(receipt)));
  }
  const { renderReceiptsPdf } = await import("../print/render.ts");
  const pdf = await renderReceiptsPdf(inputs, `Representaciones impresas ${company.rnc}`);
  if (pdf.byteLength > PRINTED_COPIES_LIMIT)
    throw new ApiProblem("unprocessable", {
      detail: `The printed copies take ${pdf.byteLength} bytes, over DGII's 10 MB: name fewer invoices.`,
      errors: [
        {
          path: "/encf",
          code: "printed_copies_too_large",
          message: "The printed copies exceed DGII's 10 MB: choose fewer invoices.",
          messageEs: "Las representaciones impresas pasan de 10 MB, el límite de DGII: elija menos facturas.",
        },
      ],
    });
  return pdf;
}
