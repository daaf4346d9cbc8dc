// What the 606 says before its records, as the month object computes it (month-purchases-head.ts):
// the types alone, so the month object's RPC interface names them without importing the SQL.
import type { Purchase } from "./month-row-types.ts";

/** The 606's totalled columns (a check against the books), in the order its JSON lists them. */
export const TOTALLED_606 = [
  "montoFacturadoServicios",
  "montoFacturadoBienes",
  "totalMontoFacturado",
  "itbisFacturado",
  "itbisRetenido",
  "itbisLlevadoCosto",
  "itbisPorAdelantar",
  "montoRetencionRenta",
] as const;

/** A purchase's or own document's classification as resolved (codes, dates; amounts in cents). */
export interface ResolvedRow {
  tipoBienesServicios: string | null;
  fechaPago: string | null;
  formaPago: string | null;
  tipoRetencionIsr: string | null;
  itbisRetenido: number;
  montoRetencionRenta: number;
  itbisAlCosto: number;
  /** The document's TotalITBIS as its figures write it. */
  itbisFacturado: string;
}

export interface PurchasesHead {
  /** Records the 606 lists: counted purchases and accepted own documents, with readable figures. */
  count: number;
  /** Rows (purchases and own documents, any status) whose figures are still to be read. */
  unread: number;
  /** Exact cents of the totalled columns over the records, as the file writes them (without sign). */
  cents: Record<(typeof TOTALLED_606)[number], string>;
  /** Purchases left out (commercially rejected, or not confirmed by DGII), in id order. */
  excluded: Pick<Purchase, "id" | "encf" | "rncEmisor" | "approvalStatus" | "dgiiStatus" | "dgiiOverrideReason">[];
  /** Counted purchases that lack something, in id order. */
  incomplete: (ResolvedRow & { id: string; encf: string; rncEmisor: string })[];
  /** Own documents not final with DGII, or accepted and lacking something, in e-NCF order. */
  own: (ResolvedRow & { encf: string; status: string; counterparty: string })[];
}
