// Bench-only: a large month's rows, made up but real in shape (the columns the ledger writes, the
// figures a signed e-CF gives), for the monthly formats' and the archive's benchmarks and their
// paging tests. Deterministic: row i is always the same row. Never used on a request path except
// the bench seeding route, which is not found unless BENCH_BULK is "1" (routes/bench.ts).
import type { DocumentFigures } from "../ledger/month/document-figures.ts";
import type { NewPurchase, NewReceipt } from "../ledger/rows.ts";

/** A supplier's RNC (9 digits) or cédula (11), so the 606's key mixes both lengths. */
const supplierRnc = (i: number) =>
  i % 3 === 0 ? `4${String(i % 997).padStart(10, "0")}` : `1${String(i % 499).padStart(8, "0")}`;

/** Amounts from an index, in exact cents (never a float): base, ITBIS 18 %, total. */
function amounts(i: number): { base: string; itbis: string; total: string } {
  const cents = 10_000 + ((i * 7919) % 5_000_000);
  const itbis = (cents * 18 - ((cents * 18) % 100)) / 100;
  const money = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, "0")}`;
  return { base: money(cents), itbis: money(itbis), total: money(cents + itbis) };
}

function figures(i: number, rncComprador: string | null): DocumentFigures {
  const { base, itbis, total } = amounts(i);
  const services = i % 4 === 0;
  return {
    v: 1,
    montoServicios: services ? base : "0.00",
    montoBienes: services ? "0.00" : base,
    montoFacturado: base,
    itbisFacturado: itbis,
    itbisRetenido: null,
    retencionRenta: null,
    isc: "0.00",
    otrosImpuestos: "0.00",
    propinaLegal: "0.00",
    montoTotal: total,
    tipoIngresos: "01",
    tipoPago: i % 5 === 0 ? "2" : "1",
    formasPago: i % 2 === 0 ? [{ formaPago: "3", montoPago: total }] : [],
    ncfModificado: null,
    rncComprador,
    identificadorExtranjero: null,
  };
}

/** The day of the month row i falls on (rows are spread over the month, not in key order). */
const dayOf = (month: string, i: number) => `${month}-${String(1 + ((i * 13) % 28)).padStart(2, "0")}`;

/** Purchase i of the month: classified, confirmed by DGII; one in 50 commercially rejected (left out). */
export function benchPurchase(companyId: string, month: string, i: number): NewPurchase {
  const rncEmisor = supplierRnc(i);
  const encf = `E31${String(i + 1).padStart(10, "0")}`;
  const { total, itbis } = amounts(i);
  return {
    id: `bench-${String((i * 7_368_787) % 100_000_007).padStart(9, "0")}-${i}`,
    companyId,
    rncEmisor,
    razonSocialEmisor: `Proveedor ${i % 997}`,
    encf,
    tipoeCF: "31",
    issueDate: dayOf(month, i),
    montoTotal: total,
    totalItbis: itbis,
    xmlKey: `bench/compras/${rncEmisor}${encf}.xml`,
    xmlSha256: "0".repeat(64),
    arecfKey: `bench/compras/${rncEmisor}${encf}.arecf.xml`,
    arecfEstado: "0",
    fechaHoraAcuseRecibo: "01-03-2025 10:00:00",
    approvalStatus: i % 50 === 7 ? "rejected" : null,
    figures: JSON.stringify(figures(i, null)),
    tipoBienesServicios: i % 4 === 0 ? "02" : "09",
    formaPago: "01",
    dgiiStatus: "confirmed",
    dgiiNextCheckAt: null,
  };
}

/** Receipt i the issuer issued in the month, of type `tipo` (E31 to a business; E41/E43 own purchases). */
export function benchReceipt(companyId: string, issuerRnc: string, month: string, i: number, tipo = "31"): NewReceipt {
  const encf = `E${tipo}${String(i + 1).padStart(10, "0")}`;
  const buyer = tipo === "43" ? null : supplierRnc(i + 1);
  const { total, itbis } = amounts(i);
  return {
    id: `bench-r-${tipo}-${i}`,
    companyId,
    encf,
    tipoeCF: tipo,
    issueDate: dayOf(month, i),
    rncComprador: buyer,
    razonSocialComprador: buyer ? `Cliente ${i % 997}` : null,
    montoTotal: total,
    totalItbis: itbis,
    securityCode: "AbC123",
    fechaHoraFirma: "01-03-2025 10:00:00",
    timbreUrl: "https://ecf.dgii.gov.do/bench",
    xmlKey: `${issuerRnc}/${month.slice(0, 4)}/${month.slice(5)}/${encf}.xml`,
    xmlSha256: "0".repeat(64),
    documentHash: "bench",
    dgiiPath: "ecf",
    status: "accepted",
    figures: JSON.stringify(figures(i, buyer)),
  };
}
