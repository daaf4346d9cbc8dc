// DGII's taxpayer registry in D1: imported whole as a new generation (start, rows in chunks,
// commit), switched to in one statement, old generations deleted in chunks afterwards. Readers
// look a taxpayer up through the row naming the current generation, in one statement, so they see
// the whole previous registry or the whole new one. Schema: db/taxpayers-tables.ts.
import { and, desc, eq } from "drizzle-orm";
import { database } from "../db/client.ts";
import { taxpayerImports, taxpayerRegistry, taxpayers } from "../db/taxpayers-tables.ts";
import { ApiProblem } from "../errors/problem.ts";

/** A taxpayer row as an import sends it (the CLI parsed it from DGII's file). */
export interface TaxpayerRow {
  rnc: string;
  legalName: string;
  tradeName: string | null;
  activity: string | null;
  status: string;
  paymentRegime: string | null;
  /** yyyy-MM-dd */
  registeredOn: string | null;
}

/** What a lookup answers: the contract the till reads too, so its fields do not change. */
export interface TaxpayerView extends TaxpayerRow {
  active: boolean;
  registryImportedAt: string;
}

export type ImportState = (typeof taxpayerImports.$inferSelect)["state"];

/** Rows one append request may carry: about 1.2 MB of JSON, under the 2 MB body limit. */
export const MAX_ROWS_PER_APPEND = 5000;
/**
 * Rows per INSERT: the rows travel as one JSON parameter read with json_each (D1 allows 100
 * bound parameters per statement, a few rows' worth, but a value of up to 2 MB); 1,000 rows are
 * about 150 KB.
 */
const ROWS_PER_STATEMENT = 1000;
/** Rows one DELETE removes when old generations are purged, and DELETEs per purge request. */
const PURGE_ROWS_PER_STATEMENT = 10_000;
const PURGE_STATEMENTS_PER_CALL = 5;
/** An import that received nothing for this long is abandoned by the next purge. */
export const IMPORT_IDLE_MS = 24 * 3_600_000;

/** DGII spells the state of a taxpayer that may issue and receive tax credit this way. */
const ACTIVE_STATUS = "ACTIVO";

export async function startImport(d1: D1Database, source: string | null, now: Date) {
  const at = now.toISOString();
  const [row] = await database(d1)
    .insert(taxpayerImports)
    .values({ state: "loading", source, startedAt: at, lastActivityAt: at })
    .returning();
  return importView(row!);
}

/**
 * Adds rows to a loading import, all or none (one D1 batch is one transaction). A row already in
 * the import (same RNC) is replaced: a chunk sent again after a lost answer changes nothing, and
 * a file listing an RNC twice keeps its last line.
 */
export async function appendRows(
  d1: D1Database,
  generation: number,
  rows: readonly TaxpayerRow[],
  now: Date,
): Promise<{ importId: number; accepted: number }> {
  // Every statement checks the import is still loading inside the transaction, so rows never
  // land in an import committed or abandoned meanwhile.
  const touch = d1
    .prepare("UPDATE taxpayer_imports SET last_activity_at = ?2 WHERE generation = ?1 AND state = 'loading'")
    .bind(generation, now.toISOString());
  const inserts: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const packed = JSON.stringify(
      rows
        .slice(i, i + ROWS_PER_STATEMENT)
        .map((r) => [r.rnc, r.legalName, r.tradeName, r.activity, r.status, r.paymentRegime, r.registeredOn]),
    );
    inserts.push(
      d1
        .prepare(
          `INSERT INTO taxpayers (generation, rnc, legal_name, trade_name, activity, status, payment_regime, registered_on)
           SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
                  json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]')
           FROM json_each(?2)
           WHERE EXISTS (SELECT 1 FROM taxpayer_imports WHERE generation = ?1 AND state = 'loading')
           ON CONFLICT (generation, rnc) DO UPDATE SET legal_name = excluded.legal_name, trade_name = excluded.trade_name, activity = excluded.activity,
             status = excluded.status, payment_regime = excluded.payment_regime, registered_on = excluded.registered_on`,
        )
        .bind(generation, packed),
    );
  }
  const [touched] = await d1.batch([touch, ...inserts]);
  if (!touched!.meta.changes) await refuseNotLoading(d1, generation, "add rows to");
  return { importId: generation, accepted: rows.length };
}

/**
 * Makes a loading import the registry readers see: one statement rewrites the row naming the
 * current generation (unless a newer import was committed meanwhile); the import's rows are
 * counted inside the same transaction. Committing the current import again answers the same.
 */
export async function commitImport(d1: D1Database, generation: number, now: Date) {
  const db = database(d1);
  const found = await db.query.taxpayerImports.findFirst({ where: eq(taxpayerImports.generation, generation) });
  if (!found) throw notFoundImport(generation);
  if (found.state === "current") return importView(found);
  if (found.state !== "loading") await refuseNotLoading(d1, generation, "commit");
  const any = await d1.prepare("SELECT 1 FROM taxpayers WHERE generation = ?1 LIMIT 1").bind(generation).first();
  if (!any)
    throw new ApiProblem("unprocessable", {
      detail: `Import ${generation} has no rows; send its rows before committing it.`,
    });
  const at = now.toISOString();
  await d1.batch([
    // The switch. The registry's one row names the generation every lookup reads.
    d1
      .prepare(
        `INSERT INTO taxpayer_registry (id, generation, row_count, imported_at)
         SELECT 1, ?1, (SELECT COUNT(*) FROM taxpayers WHERE generation = ?1), ?2
         WHERE EXISTS (SELECT 1 FROM taxpayer_imports WHERE generation = ?1 AND state = 'loading')
         ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, row_count = excluded.row_count, imported_at = excluded.imported_at
         WHERE excluded.generation > taxpayer_registry.generation`,
      )
      .bind(generation, at),
    // The imports' states follow the row: the named one is current, the one it replaced is
    // replaced, and this one, if a newer import won, is abandoned (its rows purged).
    d1
      .prepare(
        `UPDATE taxpayer_imports SET
           state = CASE WHEN generation = (SELECT generation FROM taxpayer_registry WHERE id = 1) THEN 'current' WHEN generation = ?1 THEN 'abandoned' ELSE 'replaced' END,
           committed_at = CASE WHEN generation = ?1 THEN ?2 ELSE committed_at END,
           row_count = CASE WHEN generation = ?1 THEN (SELECT COUNT(*) FROM taxpayers WHERE generation = ?1) ELSE row_count END
         WHERE (generation = ?1 AND state = 'loading') OR state = 'current'`,
      )
      .bind(generation, at),
  ]);
  const after = await db.query.taxpayerImports.findFirst({ where: eq(taxpayerImports.generation, generation) });
  if (after?.state !== "current") {
    throw new ApiProblem("conflict", {
      detail: `Import ${generation} was not committed: ${after?.state === "abandoned" ? "a newer import was committed meanwhile" : `it is ${after?.state}`}.`,
    });
  }
  return importView(after);
}

/** Gives up a loading import: it never becomes visible, and the next purges delete its rows. */
export async function abandonImport(d1: D1Database, generation: number) {
  const db = database(d1);
  const [row] = await db
    .update(taxpayerImports)
    .set({ state: "abandoned" })
    .where(and(eq(taxpayerImports.generation, generation), eq(taxpayerImports.state, "loading")))
    .returning();
  if (row) return importView(row);
  const found = await db.query.taxpayerImports.findFirst({ where: eq(taxpayerImports.generation, generation) });
  if (!found) throw notFoundImport(generation);
  if (found.state === "abandoned") return importView(found);
  throw new ApiProblem("conflict", {
    detail: `Import ${generation} is ${found.state}; only a loading import can be abandoned.`,
  });
}

/**
 * Deletes rows of generations nobody reads (replaced or abandoned), a bounded amount per call so
 * each request stays short; `remaining` says whether to call again. Imports idle for a day are
 * abandoned first (a CLI that died mid-file).
 */
export async function purgeStaleRows(d1: D1Database, now: Date): Promise<{ deleted: number; remaining: boolean }> {
  await d1
    .prepare("UPDATE taxpayer_imports SET state = 'abandoned' WHERE state = 'loading' AND last_activity_at < ?1")
    .bind(new Date(now.getTime() - IMPORT_IDLE_MS).toISOString())
    .run();
  let deleted = 0;
  for (let round = 0; round < PURGE_STATEMENTS_PER_CALL; round++) {
    const stale = await staleGeneration(d1);
    if (stale === null) return { deleted, remaining: false };
    // The primary key starts with the generation: the subquery walks one generation's range.
    const result = await d1
      .prepare(
        "DELETE FROM taxpayers WHERE generation = ?1 AND rnc IN (SELECT rnc FROM taxpayers WHERE generation = ?1 LIMIT ?2)",
      )
      .bind(stale, PURGE_ROWS_PER_STATEMENT)
      .run();
    deleted += result.meta.changes;
  }
  return { deleted, remaining: (await staleGeneration(d1)) !== null };
}

/** The oldest replaced or abandoned generation that still has rows, or null. */
async function staleGeneration(d1: D1Database): Promise<number | null> {
  const row = await d1
    .prepare(
      `SELECT i.generation FROM taxpayer_imports i
       WHERE i.state IN ('replaced', 'abandoned') AND EXISTS (SELECT 1 FROM taxpayers t WHERE t.generation = i.generation)
       ORDER BY i.generation LIMIT 1`,
    )
    .first<{ generation: number }>();
  return row?.generation ?? null;
}

/** The registry readers see (null before the first import) and the latest imports. */
export async function registryStatus(d1: D1Database) {
  const db = database(d1);
  const [current, recent, stale] = await Promise.all([
    db.query.taxpayerRegistry.findFirst({ where: eq(taxpayerRegistry.id, 1) }),
    db.query.taxpayerImports.findMany({ orderBy: desc(taxpayerImports.generation), limit: 10 }),
    staleGeneration(d1),
  ]);
  return {
    current: current ? { importId: current.generation, rows: current.rowCount, importedAt: current.importedAt } : null,
    imports: recent.map(importView),
    purgePending: stale !== null,
  };
}

/**
 * One taxpayer of the current registry, read together with the row naming the generation in one
 * statement, so an import committed at that moment shows entirely or not at all.
 */
export async function lookupTaxpayer(d1: D1Database, rnc: string): Promise<TaxpayerView> {
  const [row] = await database(d1)
    .select({ importedAt: taxpayerRegistry.importedAt, taxpayer: taxpayers })
    .from(taxpayerRegistry)
    .leftJoin(taxpayers, and(eq(taxpayers.generation, taxpayerRegistry.generation), eq(taxpayers.rnc, rnc)))
    .where(eq(taxpayerRegistry.id, 1));
  if (!row)
    throw new ApiProblem("taxpayer_not_found", {
      detail: `RNC ${rnc} cannot be looked up: no taxpayer registry has been imported yet.`,
    });
  const t = row.taxpayer;
  if (!t)
    throw new ApiProblem("taxpayer_not_found", {
      detail: `RNC ${rnc} is not in DGII's taxpayer registry (imported ${row.importedAt}).`,
    });
  return {
    rnc: t.rnc,
    legalName: t.legalName,
    tradeName: t.tradeName,
    activity: t.activity,
    status: t.status,
    active: t.status === ACTIVE_STATUS,
    paymentRegime: t.paymentRegime,
    registeredOn: t.registeredOn,
    registryImportedAt: row.importedAt,
  };
}

function importView(row: typeof taxpayerImports.$inferSelect) {
  return {
    importId: row.generation,
    state: row.state,
    source: row.source,
    startedAt: row.startedAt,
    committedAt: row.committedAt,
    rows: row.rowCount,
  };
}

const notFoundImport = (generation: number) =>
  new ApiProblem("not_found", { detail: `No taxpayer import ${generation}.` });

async function refuseNotLoading(d1: D1Database, generation: number, what: string): Promise<never> {
  const found = await database(d1).query.taxpayerImports.findFirst({
    where: eq(taxpayerImports.generation, generation),
  });
  if (!found) throw notFoundImport(generation);
  throw new ApiProblem("conflict", {
    detail: `Cannot ${what} import ${generation}: it is ${found.state}; start a new import.`,
  });
}
