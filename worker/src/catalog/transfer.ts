// Whole-catalogue transfers: a CSV file in (checked entirely in the worker, then stored in one
// issuer-object transaction, so a bad line leaves nothing half-imported) and the catalogue out as a
// CSV stream read a page per RPC (the worker never holds the whole catalogue).
import { refuse } from "../errors/refusal.ts";
import { issuerLedger } from "../ledger/client.ts";
import { unwrap } from "../ledger/refusal.ts";
import type { ImportOutcome } from "../ledger/issuer/catalog.ts";
import { productCsvLine, productsCsvHeader, readProductsCsv } from "./csv.ts";
import { productView } from "./products.ts";

/** Products per RPC while exporting. */
const EXPORT_PAGE = 1000;

export interface ImportAnswer extends ImportOutcome {
  /** Product lines in the file. */
  lines: number;
}

export async function importProductsCsv(env: Env, companyId: string, text: string): Promise<ImportAnswer> {
  const { products, lines, problems, problemCount } = readProductsCsv(text);
  if (problemCount) {
    const lines = new Set(problems.map((p) => p.line)).size;
    throw refuse("not_allowed", {
      detail: `${problemCount} problem(s) on ${lines}${problemCount > problems.length ? "+" : ""} line(s) of the file; nothing was imported. Correct them and send the whole file again.`,
      errors: problems,
      extensions: { problemCount },
    });
  }
  const outcome = await unwrap(issuerLedger(env, companyId).catalogue().importProducts(products, lines));
  return { ...outcome, lines: products.length };
}

/** The catalogue as CSV, in code order, a page of products per RPC. */
export function exportProductsCsv(env: Env, companyId: string): ReadableStream<Uint8Array> {
  const ledger = issuerLedger(env, companyId);
  const encoder = new TextEncoder();
  let after: string | null = null;
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(productsCsvHeader()));
        return;
      }
      if (done) return;
      const rows = await ledger.catalogue().productsAfter(after, EXPORT_PAGE);
      if (rows.length) controller.enqueue(encoder.encode(rows.map((row) => productCsvLine(productView(row))).join("")));
      if (rows.length < EXPORT_PAGE) {
        done = true;
        controller.close();
      } else after = rows.at(-1)!.code;
    },
  });
}
