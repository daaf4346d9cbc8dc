// What the 606 says before its records (and its totals after them), computed by SQL inside the
// month object, as the 607's is (month-sales-head.ts): an importer's 50,000 purchases never cross
// the RPC for the header, only the second pass pages them. It answers what the page-by-page pass
// over `purchaseRecord606` and `ownRecord606` (reports/dgii-606.ts) read: the same rows (figures
// that `readFigures` reads), each purchase's classification resolved in the order
// `resolvePurchase` (receiving/purchase-classification.ts) takes it (the purchase, the defaults
// the issuer set, the document, the learned defaults), an own E41/E43/E47's as `resolveOwn` does.
// Defaults live in the issuer object: they are asked for once, for the month's counterparties.
// Amounts are exact integer cents (figures and classifications are written with two decimals); a
// percentage default is applied as DGII rounds, half-up away from zero. What is missing is returned
// as the resolved values of the rows that lack something: reports/ words the items.
import { sql, type SQL } from "drizzle-orm";
import type { MonthDb } from "./month-receipts.ts";
import { TOTALLED_606, type PurchasesHead, type ResolvedRow } from "./purchases-head-shape.ts";
import type { SupplierDefault } from "../issuer/supplier-defaults.ts";

/** Cents of a decimal text (no, one or two decimals); NULL stays NULL. */
const cents = (x: string) =>
  `(CASE WHEN ${x} IS NULL THEN NULL WHEN instr(${x}, '.') = 0 THEN CAST(${x} AS INTEGER) * 100 ELSE ` +
  `CAST(replace(substr(${x} || '00', 1, instr(${x}, '.') + 2), '.', '') AS INTEGER) END)`;
/**
 * `base` cents × `hundredths` of a percent, rounded half-up away from zero (NULL without a rate);
 * exact while the product fits SQLite's 64-bit integers (a base under 9 × 10^12 pesos).
 */
const rated = (base: string, hundredths: string) =>
  `(CASE WHEN ${hundredths} IS NULL THEN NULL WHEN ${base} * ${hundredths} < 0 ` +
  `THEN -((-(${base} * ${hundredths}) + 5000) / 10000) ELSE (${base} * ${hundredths} + 5000) / 10000 END)`;
/** The figures when `readFigures` reads them (valid JSON of layout 1), else NULL. */
const FIGURES = `CASE WHEN json_valid(figures) THEN CASE WHEN json_extract(figures, '$.v') = 1 THEN figures END END`;
const figure = (path: string) => `json_extract(f, '$.${path}')`;

/** The 606's Forma de Pago the document states (formaPagoOfDocument); `paidAtOnce` for TipoPago 1. */
const documentForma = (paidAtOnce: string) => `coalesce(
  (SELECT CASE WHEN count(DISTINCT m) = 1 THEN max(m) WHEN count(DISTINCT m) > 1 THEN '07' END
   FROM (SELECT CASE CAST(json_extract(value, '$.formaPago') AS TEXT) WHEN '1' THEN '01' WHEN '2' THEN '02'
     WHEN '3' THEN '03' WHEN '4' THEN '04' WHEN '6' THEN '05' WHEN '7' THEN '06' ELSE '07' END AS m
     FROM json_each(f, '$.formasPago'))),
  CASE ${figure("tipoPago")} WHEN '2' THEN '04' WHEN '1' THEN ${paidAtOnce} END)`;

/** The figures' amounts the resolution needs, in cents. */
const AMOUNTS = `${cents(figure("itbisFacturado"))} AS itbis_c, ${cents(figure("montoFacturado"))} AS monto_c,
  ${cents(figure("montoServicios"))} AS servicios_c, ${cents(figure("montoBienes"))} AS bienes_c`;

/** What classificationGaps finds (a superset is fine: reports/ words the gaps of the rows returned). */
const LACKS = `(coalesce(tipo, '') = '' OR coalesce(forma, '') = ''
  OR ((itbis_ret <> 0 OR renta <> 0) AND coalesce(fecha_pago, '') = '')
  OR (renta <> 0 AND coalesce(tipo_ret, '') = '') OR costo > itbis_c)`;

const RESOLVED = `tipo AS tipoBienesServicios, fecha_pago AS fechaPago, forma AS formaPago,
  tipo_ret AS tipoRetencionIsr, itbis_ret AS itbisRetenido, renta AS montoRetencionRenta, costo AS itbisAlCosto,
  ${figure("itbisFacturado")} AS itbisFacturado`;

/** A percentage default in integer hundredths (exact: the API takes at most two decimals, learned rates have two). */
function hundredths(percent: string | null): number | null {
  if (percent === null) return null;
  const [whole, fraction = ""] = percent.split(".");
  if (fraction.length > 2) throw new Error(`a percentage default with more than two decimals: ${percent}`);
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

/** The defaults as a table the statements join (one bound JSON parameter, whatever their number). */
function defaultsTable(defaults: readonly SupplierDefault[]): SQL {
  const rows = defaults.map((d) => ({
    rnc: d.rncEmisor,
    origin: d.origin,
    tipo: d.tipoBienesServicios,
    forma: d.formaPago,
    tipo_ret: d.tipoRetencionIsr,
    itbis_pct: hundredths(d.itbisRetenidoPorcentaje),
    renta_pct: hundredths(d.retencionRentaPorcentaje),
    costo_pct: hundredths(d.itbisAlCostoPorcentaje),
  }));
  const names = ["rnc", "origin", "tipo", "forma", "tipo_ret", "itbis_pct", "renta_pct", "costo_pct"];
  const columns = names.map((name) => `json_extract(value, '$.${name}') AS ${name === "rnc" ? name : `d_${name}`}`);
  return sql`SELECT ${sql.raw(columns.join(", "))} FROM json_each(${JSON.stringify(rows)})`;
}
const DEFAULT_COLUMNS = "d_origin, d_tipo, d_forma, d_tipo_ret, d_itbis_pct, d_renta_pct, d_costo_pct";

/** The month's purchases resolved (`f` their figures, NULL when unread), with `counted` and the amounts. */
function resolvedPurchases(defaults: SQL): SQL {
  const set = (c: string) => `CASE WHEN d_origin = 'set' THEN d_${c} END`;
  // Learned defaults fill only a purchase no person classified (classifiedByPerson), the form excepted.
  const learned = (c: string) => `CASE WHEN d_origin = 'learned' AND tipo_bienes_servicios IS NULL THEN d_${c} END`;
  const amount = (own: string, base: string, pct: string, document: string | null) =>
    `coalesce(${cents(own)}, ${rated(base, set(pct))}, ${document ? cents(figure(document)) : "NULL"}, ` +
    `${rated(base, learned(pct))}, 0)`;
  const resolved = [
    `coalesce(tipo_bienes_servicios, ${set("tipo")}, ${learned("tipo")}) AS tipo`,
    `coalesce(forma_pago, ${set("forma")}, ${documentForma("NULL")},
      CASE WHEN d_origin = 'learned' THEN d_forma END) AS forma`,
    `coalesce(tipo_retencion_isr, ${set("tipo_ret")}, ${learned("tipo_ret")}) AS tipo_ret`,
    `${amount("itbis_retenido", "itbis_c", "itbis_pct", "itbisRetenido")} AS itbis_ret`,
    `${amount("monto_retencion_renta", "monto_c", "renta_pct", "retencionRenta")} AS renta`,
    `${amount("itbis_al_costo", "itbis_c", "costo_pct", null)} AS costo`,
    `approval_status IS NOT 'rejected' AND (dgii_status IN ('confirmed', 'conditional')
      OR (dgii_status <> 'rejected' AND dgii_override_reason IS NOT NULL)) AS counted`,
  ];
  return sql`
    SELECT *, ${sql.raw(resolved.join(",\n"))}
    FROM (
      SELECT p.*, ${sql.raw(AMOUNTS)}, ${sql.raw(DEFAULT_COLUMNS)}
      FROM (SELECT id, encf, rnc_emisor, approval_status, dgii_status, dgii_override_reason, fecha_pago,
          tipo_bienes_servicios, forma_pago, tipo_retencion_isr, itbis_retenido, monto_retencion_renta,
          itbis_al_costo, ${sql.raw(FIGURES)} AS f
        FROM purchases) AS p
      LEFT JOIN (${defaults}) AS d ON d.rnc = p.rnc_emisor
    )`;
}

/** The month's own documents of types `tipos` resolved as resolveOwn does. */
function resolvedOwn(defaults: SQL, tipos: readonly string[], issuerRnc: string): SQL {
  const renta = `CASE WHEN tipo_ecf = '47' THEN 0 ELSE coalesce(${cents(figure("retencionRenta"))}, 0) END`;
  const rule = "CASE WHEN tipo_ecf = '41' AND NOT (bienes_c = 0 AND servicios_c <> 0) THEN '09' ELSE '02' END";
  const resolved = [
    `coalesce(d_tipo, ${rule}) AS tipo`,
    `coalesce(${documentForma("'01'")}, d_forma) AS forma`,
    `CASE WHEN (${renta}) = 0 THEN NULL ELSE coalesce(d_tipo_ret, '02') END AS tipo_ret`,
    `coalesce(${cents(figure("itbisRetenido"))}, 0) AS itbis_ret`,
    `${renta} AS renta`,
    "0 AS costo",
  ];
  const comprador = sql.raw(figure("rncComprador"));
  const counterparty = sql`CASE WHEN tipo_ecf = '41' THEN coalesce(${comprador}, rnc_comprador, ${issuerRnc})
    ELSE ${issuerRnc} END`;
  const ofTypes = sql.join(
    tipos.map((t) => sql`${t}`),
    sql`, `,
  );
  return sql`
    SELECT *, ${sql.raw(resolved.join(",\n"))}
    FROM (
      SELECT o.*, ${sql.raw(DEFAULT_COLUMNS)}
      FROM (
        SELECT encf, status, tipo_ecf, issue_date AS fecha_pago, f, ${sql.raw(AMOUNTS)}, ${counterparty} AS counterparty
        FROM (SELECT *, ${sql.raw(FIGURES)} AS f FROM receipts WHERE tipo_ecf IN (${ofTypes}))
      ) AS o
      LEFT JOIN (${defaults}) AS d ON d.rnc = o.counterparty
    )`;
}

/** One record's contribution to each totalled column, in cents as the file writes it (without sign). */
const CONTRIBUTIONS = [
  "abs(servicios_c)",
  "abs(bienes_c)",
  "abs(monto_c)",
  "abs(itbis_c)",
  "abs(itbis_ret)",
  "abs(costo)",
  "CASE WHEN costo > itbis_c THEN 0 ELSE abs(itbis_c - costo) END",
  "abs(renta)",
];

/** The 606's counterparties in the month: each purchase's supplier and each own document's. */
export function purchaseCounterparties(db: MonthDb, tipos: readonly string[], issuerRnc: string): string[] {
  const own = resolvedOwn(defaultsTable([]), tipos, issuerRnc);
  return db
    .all<{ rnc: string }>(
      sql`SELECT DISTINCT rnc_emisor AS rnc FROM purchases UNION SELECT DISTINCT counterparty FROM (${own})`,
    )
    .map((r) => r.rnc);
}

/** The 606's header figures: purchases, and own documents of types `tipos`, with `defaults` by counterparty. */
export function purchasesHeadOf(
  db: MonthDb,
  tipos: readonly string[],
  issuerRnc: string,
  defaults: readonly SupplierDefault[],
): PurchasesHead {
  const table = defaultsTable(defaults);
  const bought = resolvedPurchases(table);
  const own = resolvedOwn(table, tipos, issuerRnc);
  // One scan of each table for the count, the rows unread and every sum (a record: a counted
  // purchase, an accepted own document).
  const contributions = sql.raw(CONTRIBUTIONS.map((c, i) => `${c} AS k${i}`).join(", "));
  const rows = sql`SELECT f, f IS NOT NULL AND counted AS record, ${contributions} FROM (${bought})
    UNION ALL SELECT f, f IS NOT NULL AND status IN ('accepted', 'conditional'), ${contributions} FROM (${own})`;
  const sums = CONTRIBUTIONS.map((_, i) => `CAST(coalesce(sum(CASE WHEN record THEN k${i} END), 0) AS TEXT) AS c${i}`);
  const totals = db.get<Record<string, string | number>>(sql`
    SELECT coalesce(sum(record), 0) AS count, coalesce(sum(f IS NULL), 0) AS unread, ${sql.raw(sums.join(", "))}
    FROM (${rows})`)!;
  // The purchases left out and the counted ones lacking something, in one scan, told apart here.
  const purchases = db.all<PurchasesHead["excluded"][number] & ResolvedRow & { counted: number }>(sql`
    SELECT id, encf, rnc_emisor AS rncEmisor, approval_status AS approvalStatus, dgii_status AS dgiiStatus,
      dgii_override_reason AS dgiiOverrideReason, counted, ${sql.raw(RESOLVED)}
    FROM (${bought}) WHERE f IS NOT NULL AND (NOT counted OR ${sql.raw(LACKS)}) ORDER BY id`);
  const ownMissing = db.all<PurchasesHead["own"][number]>(sql`
    SELECT encf, status, counterparty, ${sql.raw(RESOLVED)}
    FROM (${own}) WHERE f IS NOT NULL AND (status IN ('signed', 'in_process', 'contingency')
      OR (status IN ('accepted', 'conditional') AND ${sql.raw(LACKS)})) ORDER BY encf`);
  return {
    count: Number(totals.count),
    unread: Number(totals.unread),
    cents: Object.fromEntries(TOTALLED_606.map((c, i) => [c, String(totals[`c${i}`])])) as PurchasesHead["cents"],
    excluded: purchases
      .filter((p) => !p.counted)
      .map(({ id, encf, rncEmisor, approvalStatus, dgiiStatus, dgiiOverrideReason }) => ({
        id,
        encf,
        rncEmisor,
        approvalStatus,
        dgiiStatus,
        dgiiOverrideReason,
      })),
    incomplete: purchases
      .filter((p) => p.counted)
      .map(({ approvalStatus: _a, dgiiStatus: _d, dgiiOverrideReason: _o, counted: _c, ...row }) => row),
    own: ownMissing,
  };
}

/**
 * The 606's header figures: the issuer object asked once (`defaultsOf`) for the defaults of the
 * month's counterparties, then the SQL pass.
 */
export async function purchasesHead(
  db: MonthDb,
  tipos: readonly string[],
  issuerRnc: string,
  defaultsOf: (rncs: string[]) => Promise<SupplierDefault[]>,
): Promise<PurchasesHead> {
  const rncs = purchaseCounterparties(db, tipos, issuerRnc);
  const defaults = rncs.length ? await defaultsOf(rncs) : [];
  return purchasesHeadOf(db, tipos, issuerRnc, defaults);
}
