// Bench-only: one issuer's month of synthetic but realistic ledger rows (a supermarket chain:
// mostly consumer E32, credit-fiscal E31 to a few thousand business buyers, notes, and the rarer
// types), generated deterministically from a row's index so a bench can load millions of them in
// chunks and know which row is where. The rows go through the month object's ordinary import
// (ledger/month/month-import.ts). Reachable only when BENCH_BULK is "1" (benchBulkEnabled): production
// never sets it, so the route answers 404 and the object refuses.
import { timbreUrl } from "@ecf/shared/signing/timbre";
import type { BenchRowsSpec, MonthRows } from "../ledger/month/month-import.ts";
import type { NewPurchase, NewReceipt } from "../ledger/rows.ts";
import type { DocumentFigures } from "../ledger/month/document-figures.ts";

/** The bulk path is open only in a bench's own `wrangler dev --var BENCH_BULK:1`. */
export function benchBulkEnabled(env: unknown): boolean {
  return (env as { BENCH_BULK?: string }).BENCH_BULK === "1";
}

/** A month object's bench load: synthetic rows by its ordinary import, then its SQLite size. */
export function loadBenchRows(env: unknown, spec: BenchRowsSpec, month: BenchMonth, storage: BenchStorage) {
  if (!benchBulkEnabled(env)) throw new Error("The bench bulk path is off (BENCH_BULK is not 1).");
  if (spec.count > 0) month.importRows(benchMonthRows(spec));
  return { databaseSize: storage.sql.databaseSize };
}
type BenchMonth = { importRows(rows: MonthRows): void };
type BenchStorage = { sql: { databaseSize: number } };

/** Every 1,000 receipts, in numbering order: the types a supermarket chain issues, by share. */
const TYPE_MIX: readonly [tipo: string, per1000: number][] = [
  ["32", 840],
  ["31", 110],
  ["34", 20],
  ["33", 2],
  ["41", 3],
  ["43", 5],
  ["44", 5],
  ["45", 10],
  ["46", 3],
  ["47", 2],
];
const TYPE_SLOTS: { tipo: string; start: number; width: number }[] = [];
for (const [tipo, width] of TYPE_MIX) {
  const last = TYPE_SLOTS[TYPE_SLOTS.length - 1];
  TYPE_SLOTS.push({ tipo, start: last ? last.start + last.width : 0, width });
}
/** Business buyers of E31 and the other credit-fiscal types (a skewed pool: a few buy often). */
export const BENCH_BUYERS = 5_000;

/** A 32-bit hash of an index and a salt (splitmix-like): the bench's deterministic "random". */
function hash(i: number, salt: number): number {
  let x = (i ^ Math.imul(salt, 0x9e3779b9)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

const hex64 = (i: number, salt: number) =>
  Array.from({ length: 8 }, (_, k) =>
    hash(i, salt + k)
      .toString(16)
      .padStart(8, "0"),
  ).join("");
const uuidOf = (i: number, salt: number) => {
  const h = hex64(i, salt);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The type and the number within its type of the month's receipt `i` (numbering follows time). */
export function benchReceiptNumber(i: number): { tipo: string; number: number } {
  const block = Math.floor(i / 1000);
  const slot = i % 1000;
  const at = TYPE_SLOTS.find((s) => slot < s.start + s.width)!;
  return { tipo: at.tipo, number: block * at.width + (slot - at.start) + 1 };
}

/** A business buyer's RNC (9 digits); low numbers are the frequent buyers. */
export function benchBuyerRnc(k: number): string {
  return String(130_000_000 + k * 17);
}

function buyerOf(i: number, tipo: string): { rnc: string | null; name: string | null } {
  if (tipo === "43" || tipo === "47") return { rnc: null, name: null };
  if (tipo === "32" || tipo === "41") {
    // One consumer receipt in ten names the buyer by cédula; every E41 names its informal supplier.
    if (tipo === "32" && hash(i, 3) % 10 !== 0) return { rnc: null, name: null };
    return { rnc: String(40_200_000_000 + (hash(i, 4) % 9_000_000)), name: `Persona ${hash(i, 4) % 9_000_000}` };
  }
  const r = hash(i, 5) / 2 ** 32;
  const k = Math.floor(r * r * BENCH_BUYERS); // squared: skewed towards the frequent buyers
  return { rnc: benchBuyerRnc(k), name: `Cliente Empresarial ${k} SRL` };
}

/** Integer cents, half-up: the ITBIS (18 %) inside a total that includes it. */
const itbisInside = (totalCents: number) => Math.floor((totalCents * 18 + 59) / 118);
/** Integer cents as DGII writes an amount: exactly two decimals. */
const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

function figuresOf(totalCents: number, itbisCents: number, rnc: string | null, ncf: string | null): DocumentFigures {
  return {
    v: 1,
    montoServicios: "0.00",
    montoBienes: money(totalCents - itbisCents),
    montoFacturado: money(totalCents - itbisCents),
    itbisFacturado: money(itbisCents),
    itbisRetenido: null,
    retencionRenta: null,
    isc: "0.00",
    otrosImpuestos: "0.00",
    propinaLegal: "0.00",
    montoTotal: money(totalCents),
    tipoIngresos: "01",
    tipoPago: "1",
    formasPago: [{ formaPago: "1", montoPago: money(totalCents) }],
    ncfModificado: ncf,
    rncComprador: rnc,
    identificadorExtranjero: null,
  };
}

const dayOf = (i: number, total: number, days: number) => Math.min(days, Math.floor((i * days) / total) + 1);
const daysIn = (month: string) =>
  new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();

/** Where the month's receipt `i` sorts in /reports/encf: its FechaEmision (ISO) and e-NCF. */
export function benchReceiptKey(spec: Pick<BenchRowsSpec, "month" | "total">, i: number): [string, string] {
  const { tipo, number } = benchReceiptNumber(i);
  const day = String(dayOf(i, spec.total, daysIn(spec.month))).padStart(2, "0");
  return [`${spec.month}-${day}`, `E${tipo}${String(number).padStart(10, "0")}`];
}

/** The month's receipt `i` as the ledger records one DGII accepted. */
export function benchReceipt(spec: BenchRowsSpec, i: number): NewReceipt {
  const { tipo, number } = benchReceiptNumber(i);
  const encf = `E${tipo}${String(number).padStart(10, "0")}`;
  const day = String(dayOf(i, spec.total, daysIn(spec.month))).padStart(2, "0");
  const [yyyy, mm] = spec.month.split("-");
  const fechaEmision = `${day}-${mm}-${yyyy}`;
  const seconds = Math.floor(((i % 1000) * 86_000) / 1000);
  const time = [seconds / 3600, (seconds / 60) % 60, seconds % 60].map((n) => String(Math.floor(n)).padStart(2, "0"));
  const fechaHoraFirma = `${fechaEmision} ${time.join(":")}`;
  const consumer = tipo === "32";
  const totalCents = consumer ? 5_000 + (hash(i, 1) % 500_000) : 100_000 + (hash(i, 1) % 50_000_000);
  const itbisCents = itbisInside(totalCents);
  const buyer = buyerOf(i, tipo);
  const note = tipo === "33" || tipo === "34";
  const ncfModificado = note ? `E31${String(1 + (hash(i, 6) % Math.max(1, number * 5))).padStart(10, "0")}` : null;
  const rfce = consumer && totalCents < 25_000_000;
  const securityCode = hex64(i, 7).slice(0, 6).toUpperCase();
  const montoTotal = money(totalCents);
  const verdict = hash(i, 8) % 1000;
  return {
    id: uuidOf(i, 10),
    companyId: spec.companyId,
    encf,
    tipoeCF: tipo,
    issueDate: `${yyyy}-${mm}-${day}`,
    rncComprador: buyer.rnc,
    razonSocialComprador: buyer.name,
    montoTotal,
    totalItbis: money(itbisCents),
    securityCode,
    fechaHoraFirma,
    timbreUrl: timbreUrl(
      rfce
        ? {
            form: "consultatimbrefc",
            environment: "testecf",
            rncEmisor: spec.rnc,
            encf,
            montoTotal,
            codigoSeguridad: securityCode,
          }
        : {
            form: "consultatimbre",
            environment: "testecf",
            rncEmisor: spec.rnc,
            rncComprador: buyer.rnc,
            encf,
            fechaEmision,
            montoTotal,
            fechaFirma: fechaHoraFirma,
            codigoSeguridad: securityCode,
          },
    ),
    xmlKey: `${spec.rnc}/${yyyy}/${mm}/${encf}.xml`, // as archive/r2.ts names it (not imported: Node benches read this file)
    xmlSha256: hex64(i, 20),
    documentHash: hex64(i, 30),
    dgiiPath: rfce ? "rfce" : "ecf",
    status: verdict < 5 ? "conditional" : verdict < 6 ? "rejected" : "accepted",
    trackId: rfce ? null : uuidOf(i, 40),
    dgiiCodigo: verdict < 5 ? "4" : verdict < 6 ? "2" : "1",
    sendAttempts: 1,
    source: consumer ? "device" : "api",
    ncfModificado,
    codigoModificacion: note ? "3" : null,
    figures: JSON.stringify(figuresOf(totalCents, itbisCents, buyer.rnc, ncfModificado)),
    createdAt: `${yyyy}-${mm}-${day}T${time.join(":")}.000Z`,
    updatedAt: `${yyyy}-${mm}-${day}T${time.join(":")}.500Z`,
  };
}

/** The month's purchase `i`: a supplier's e-CF we acknowledged, approved, and DGII confirmed. */
export function benchPurchase(spec: BenchRowsSpec, i: number): NewPurchase {
  const supplier = String(101_000_000 + (hash(i, 50) % 2_000) * 31);
  const tipo = ["31", "31", "31", "31", "31", "31", "34", "33", "44", "45"][hash(i, 51) % 10]!;
  const encf = `E${tipo}${String(i + 1).padStart(10, "0")}`;
  const day = String(dayOf(i, spec.total, daysIn(spec.month))).padStart(2, "0");
  const [yyyy, mm] = spec.month.split("-");
  const totalCents = 50_000 + (hash(i, 52) % 200_000_000);
  const itbisCents = itbisInside(totalCents);
  const at = `${yyyy}-${mm}-${day}T12:00:00.000Z`;
  return {
    id: `${spec.month}.${uuidOf(i, 60)}`,
    companyId: spec.companyId,
    rncEmisor: supplier,
    razonSocialEmisor: `Suplidor ${supplier} SRL`,
    encf,
    tipoeCF: tipo,
    issueDate: `${yyyy}-${mm}-${day}`,
    montoTotal: money(totalCents),
    totalItbis: money(itbisCents),
    xmlKey: `received/${spec.rnc}/${supplier}/${encf}.xml`,
    xmlSha256: hex64(i, 70),
    arecfKey: `received/${spec.rnc}/${supplier}/${encf}.arecf.xml`,
    arecfEstado: "0",
    fechaHoraAcuseRecibo: `${day}-${mm}-${yyyy} 12:00:05`,
    approvalStatus: "accepted",
    approvalKey: `received/${spec.rnc}/${supplier}/${encf}.acecf.xml`,
    approvedAt: at,
    approvalSupplierOutcome: "sent",
    approvalDgiiOutcome: "sent",
    figures: JSON.stringify(figuresOf(totalCents, itbisCents, spec.rnc, null)),
    receivedAt: at,
    dgiiStatus: "confirmed",
    securityCode: hex64(i, 80).slice(0, 6).toUpperCase(),
    dgiiChecks: 1,
    dgiiNextCheckAt: null,
    dgiiCheckedAt: at,
  };
}

/** One chunk of the month, as rows for the month object's import. */
export function benchMonthRows(spec: BenchRowsSpec): MonthRows {
  const indexes = Array.from({ length: spec.count }, (_, k) => spec.from + k);
  return spec.kind === "receipts"
    ? { receipts: indexes.map((i) => benchReceipt(spec, i)), purchases: [], audit: [] }
    : { receipts: [], purchases: indexes.map((i) => benchPurchase(spec, i)), audit: [] };
}
