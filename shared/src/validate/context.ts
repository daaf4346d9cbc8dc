/**
 * What `validateEcf` is given besides the request (the clock, the issuer's profile, the assigned
 * e-NCF, the modified receipt, the totals policy) and what it answers. Its own module so that the
 * entry point and the modules doing its work share these types without importing each other.
 */
import type { AcceptedNote } from "../credit-notes.ts";
import type { Problem } from "../problems.ts";
import type { TotalsOptions } from "../totals.ts";

/** Issuer data from the company profile, used for any `Emisor` field the request leaves out. */
export interface EmisorProfile {
  RNCEmisor?: string;
  RazonSocialEmisor?: string;
  NombreComercial?: string;
  Sucursal?: string;
  DireccionEmisor?: string;
  Municipio?: string;
  Provincia?: string;
  TablaTelefonoEmisor?: string[];
  CorreoEmisor?: string;
  WebSite?: string;
  ActividadEconomica?: string;
  CodigoVendedor?: string;
  InformacionAdicionalEmisor?: string;
}

/** The receipt an E33/E34 modifies, as our records know it (enables the balance checks). */
export interface ModifiedReceipt {
  eNCF: string;
  /** dd-MM-yyyy */
  fechaEmision?: string;
  /** Its MontoTotal. */
  montoTotal: string;
  /** Notes DGII already accepted against it. */
  acceptedNotes?: readonly AcceptedNote[];
  /**
   * Its `TipoIngresos` (01-06), when it has one (E41, E43 and E47 have none). A note that leaves
   * TipoIngresos out inherits it: the note classifies the same income as the receipt it modifies.
   */
  TipoIngresos?: string;
}

/** What a total beyond DGII's tolerance is: an error ("strict", the default) or a warning ("dgii"). */
export const TOTALS_POLICIES = ["strict", "dgii"] as const;
export type TotalsPolicy = (typeof TOTALS_POLICIES)[number];

export interface ValidationContext {
  /** The clock: FechaEmision defaults to this day in America/Santo_Domingo; FechaHoraFirma to this instant. */
  now: Date;
  /** The e-NCF assigned from the issuer's sequence (used when the request has none). */
  eNCF?: string;
  /** dd-MM-yyyy expiry of that sequence (used when the request has none and the type carries it). */
  fechaVencimientoSecuencia?: string;
  /** Company profile: fills the `Emisor` fields the request leaves out; the request wins. */
  emisor?: EmisorProfile;
  /**
   * For E33/E34: the modified receipt, to check amounts against what remains of it, and to derive
   * the note's `TipoIngresos` when the request leaves it out (otherwise "01" is assumed, with a
   * warning).
   */
  modifiedReceipt?: ModifiedReceipt;
  /**
   * What a sent total beyond DGII's tolerance is. DGII does not reject it but accepts the e-CF
   * "condicional" (informe-tecnico §12) and the issuer must then correct it with a note, so by
   * default ("strict") we refuse to issue it: an error showing the computed value. "dgii" reports
   * it as a warning, exactly as DGII would let it through.
   */
  totalsPolicy?: TotalsPolicy;
  /** Current ISC específico rates by code (DGII adjusts them quarterly); see TotalsOptions. */
  tasas?: TotalsOptions["tasas"];
}

export interface ValidationResult {
  /** No problem of severity "error". */
  ok: boolean;
  /** The completed canonical document (every leaf a string as in XML). */
  document: Record<string, unknown>;
  problems: Problem[];
}
