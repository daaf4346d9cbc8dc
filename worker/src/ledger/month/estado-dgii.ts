// A purchase's state at DGII, stored as a code (month-tables.ts `dgii_status`) and shown in DGII's
// own words: one closed set, the same in answers, reports and webhooks. No imports but a type, so
// the HTTP schemas can read it at load time.
import type { Purchase } from "./month-row-types.ts";

/** A purchase's state at DGII as stored. */
export type DgiiPurchaseStatus = Purchase["dgiiStatus"];

/**
 * What DGII said of the purchase, in DGII's words (consultaestado's answers) for the API: stored
 * as codes, shown as `estadoDgii`. "No Encontrado" is DGII's codigo 0, kept once the window ran out.
 */
export const ESTADO_DGII_OF = {
  pending: "Pendiente",
  confirmed: "Aceptado",
  conditional: "Aceptado Condicional",
  rejected: "Rechazado",
  not_found_at_dgii: "No Encontrado",
} as const satisfies Record<DgiiPurchaseStatus, string>;
export const ESTADOS_DGII = Object.values(ESTADO_DGII_OF) as [string, ...string[]];
/** The same mapping in SQL, for the reports that read the column directly. */
export const ESTADO_DGII_SQL = `CASE dgii_status ${Object.entries(ESTADO_DGII_OF)
  .map(([code, word]) => `WHEN '${code}' THEN '${word}'`)
  .join(" ")} END`;
