// What the 607 says before its records (and its totals after them), computed by SQL aggregates
// inside the month object: a retailer's 300,000 sales never cross the RPC for the header, only the
// second pass pages them. It answers exactly what the page-by-page pass over `record607`
// (reports/dgii-607.ts) answered: the same rows (sales types, no E32 sent as RFCE that DGII
// accepted), the same figures test as `readFigures` (valid JSON of layout 1), the same missing
// items in e-NCF order. Amounts are exact: figures are written with exactly two decimals, so
// removing the point gives integer cents, which SQLite sums exactly; sums come back as text.
import { sql } from "drizzle-orm";
import type { MonthDb } from "./month-receipts.ts";
import { rfceSums, type RfceSums } from "./monthly-rows.ts";

/** A sale the 607 cannot list as final yet: not final with DGII, or withheld on without a Fecha de Retención. */
export interface SalesHeadMissing {
  encf: string;
  status: string;
  kind: "pending_dgii" | "retention_date_missing";
}

export interface SalesHead {
  /** Records the 607 lists: accepted or conditional sales with readable figures. */
  count: number;
  /** Exact cents of columns 8 and 9 over those records, without sign as the file writes them. */
  cents: { montoFacturado: string; itbisFacturado: string };
  /** In e-NCF order. */
  missing: SalesHeadMissing[];
  /** Sales (any status) whose figures are still to be read: counted, not guessed. */
  unread: number;
  /** The E32 sent as RFCE that DGII accepted, summed for the summary beside the file. */
  rfce: RfceSums;
}

const ACCEPTED = sql.raw(`s.status IN ('accepted', 'conditional')`);
const PENDING = sql.raw(`s.status IN ('signed', 'in_process', 'contingency')`);

/**
 * The 607's rows (of the sales types `tipos`), with `f` their figures when `readFigures` reads
 * them (else NULL). The nested CASE keeps json_extract away from text that is not JSON (an error).
 */
const salesOf = (tipos: readonly string[]) => sql`(
  SELECT encf, status, fecha_retencion, itbis_retenido_terceros, retencion_renta_terceros,
    CASE WHEN json_valid(figures) THEN CASE WHEN json_extract(figures, '$.v') = 1 THEN figures END END AS f
  FROM receipts
  WHERE tipo_ecf IN (${sql.join(
    tipos.map((t) => sql`${t}`),
    sql`, `,
  )})
    AND NOT (dgii_path = 'rfce' AND status IN ('accepted', 'conditional'))
) AS s`;

/** Cents of an amount of the figures, without sign (DGII writes amounts positive). */
const centsOf = (path: string) => sql.raw(`abs(CAST(replace(json_extract(s.f, '$.${path}'), '.', '') AS INTEGER))`);
const sumText = (expression: ReturnType<typeof sql.raw>) =>
  sql`CAST(COALESCE(SUM(CASE WHEN ${ACCEPTED} AND s.f IS NOT NULL THEN ${expression} END), 0) AS TEXT)`;

/**
 * A withholding the record shows (columns 10 and 12): what the issuer recorded, else what the
 * document declares; an amount is shown unless it is zero, i.e. has a digit other than 0.
 */
const withheld = (column: string, figure: string) =>
  sql.raw(`coalesce(s.${column}, json_extract(s.f, '$.${figure}')) GLOB '*[1-9]*'`);
const RETENTION_DATE_MISSING = sql`${ACCEPTED} AND (${withheld("itbis_retenido_terceros", "itbisRetenido")}
  OR ${withheld("retencion_renta_terceros", "retencionRenta")}) AND coalesce(s.fecha_retencion, '') = ''`;

/** The 607's header figures over the sales of types `tipos` (SALES_TYPES in reports/dgii-607.ts). */
export function salesHead(db: MonthDb, tipos: readonly string[]): SalesHead {
  const sales = salesOf(tipos);
  const totals = db.get<{ count: number; unread: number; montoFacturado: string; itbisFacturado: string }>(sql`
    SELECT coalesce(sum(${ACCEPTED} AND s.f IS NOT NULL), 0) AS count,
           coalesce(sum(s.f IS NULL), 0) AS unread,
           ${sumText(centsOf("montoFacturado"))} AS montoFacturado,
           ${sumText(centsOf("itbisFacturado"))} AS itbisFacturado
    FROM ${sales}`)!;
  const missing = db.all<SalesHeadMissing>(sql`
    SELECT s.encf AS encf, s.status AS status,
           CASE WHEN ${PENDING} THEN 'pending_dgii' ELSE 'retention_date_missing' END AS kind
    FROM ${sales}
    WHERE s.f IS NOT NULL AND (${PENDING} OR (${RETENTION_DATE_MISSING}))
    ORDER BY s.encf`);
  return {
    count: Number(totals.count),
    cents: { montoFacturado: String(totals.montoFacturado), itbisFacturado: String(totals.itbisFacturado) },
    missing,
    unread: Number(totals.unread),
    rfce: rfceSums(db),
  };
}
