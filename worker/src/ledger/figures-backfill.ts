// Rows recorded before 1.8.0 have no document figures: the first report (or classification) that
// needs them reads each archived XML once and stores what it found, so no month is read twice.
// A request reads at most BACKFILL_PER_REQUEST documents; a larger old month says how many are
// left (the 606/607 list it as missing) and the next request goes on where this one stopped.
import { xmlToEcf } from "@ecf/shared";
import type { MonthStub } from "./client.ts";
import { documentFigures, readFigures, type DocumentFigures } from "./month/document-figures.ts";

export const BACKFILL_PER_REQUEST = 1000;
/** Parallel R2 reads: a Worker keeps at most six connections open at once. */
const PARALLEL_READS = 6;

async function figuresFromArchive(env: Env, xmlKey: string): Promise<DocumentFigures> {
  const stored = await env.ARCHIVE.get(xmlKey);
  if (!stored) throw new Error(`archived XML ${xmlKey} is missing`);
  return documentFigures(xmlToEcf(await stored.text()));
}

/** A row's figures: stored, or read from its XML now and stored. */
export async function figuresOfRow(
  env: Env,
  month: MonthStub,
  table: "receipts" | "purchases",
  row: { id: string; xmlKey: string; figures: string | null },
): Promise<DocumentFigures> {
  const stored = readFigures(row.figures);
  if (stored) return stored;
  const figures = await figuresFromArchive(env, row.xmlKey);
  await month.reports().storeFigures([{ table, id: row.id, figures: JSON.stringify(figures) }]);
  return figures;
}

/**
 * Fills in the month's missing figures, up to the budget; answers how many are still missing. A
 * document missing from the archive stays missing (and is reported so) rather than failing the report.
 */
export async function backfillFigures(env: Env, month: MonthStub, budget = BACKFILL_PER_REQUEST): Promise<number> {
  let left = budget;
  while (left > 0) {
    const { rows } = await month.reports().rowsWithoutFigures(Math.min(left, 100));
    if (!rows.length) return 0;
    const read: { table: "receipts" | "purchases"; id: string; figures: string }[] = [];
    for (let i = 0; i < rows.length; i += PARALLEL_READS) {
      const batch = rows.slice(i, i + PARALLEL_READS);
      const settled = await Promise.allSettled(batch.map((r) => figuresFromArchive(env, r.xmlKey)));
      settled.forEach((s, k) => {
        if (s.status === "fulfilled")
          read.push({ table: batch[k]!.table, id: batch[k]!.id, figures: JSON.stringify(s.value) });
        else console.error(`figures of ${batch[k]!.id}:`, s.reason);
      });
    }
    if (!read.length) break;
    await month.reports().storeFigures(read);
    left -= rows.length;
  }
  return (await month.reports().rowsWithoutFigures(0)).total;
}
