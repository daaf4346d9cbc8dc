import type { DgiiEnvironment } from "@ecf/shared";

/** Base URLs of DGII's three hosts. Locally all three are the sandbox. */
export interface DgiiHosts {
  /** ecf.dgii.gov.do: authentication, reception, queries, approvals, voiding. */
  ecf: string;
  /** fc.dgii.gov.do: consumer-invoice summaries (RFCE). */
  fc: string;
  /** statusecf.dgii.gov.do: service status. */
  status: string;
}

export const PRODUCTION_HOSTS: DgiiHosts = {
  ecf: "https://ecf.dgii.gov.do",
  fc: "https://fc.dgii.gov.do",
  status: "https://statusecf.dgii.gov.do",
};

/** DGII_TARGET "dgii" talks to DGII itself; anything else to the sandbox at DGII_SANDBOX_URL. */
export function hostsFor(env: Pick<Env, "DGII_TARGET" | "DGII_SANDBOX_URL">): DgiiHosts {
  if (env.DGII_TARGET === ("dgii" as string)) return PRODUCTION_HOSTS;
  const base = env.DGII_SANDBOX_URL.replace(/\/+$/, "");
  return { ecf: base, fc: base, status: base };
}

/** The `ambiente` parameter of the status service. */
export const AMBIENTE: Record<DgiiEnvironment, string> = { testecf: "1", ecf: "2", certecf: "3" };

/** Paths of each service under `/{environment}` (DGII matches them case-insensitively). */
export const PATHS = {
  semilla: "/autenticacion/api/Autenticacion/Semilla",
  validarSemilla: "/autenticacion/api/Autenticacion/ValidarSemilla",
  recepcion: "/recepcion/api/FacturasElectronicas",
  consultaResultado: "/consultaresultado/api/Consultas/Estado",
  recepcionFc: "/recepcionfc/api/recepcion/ecf",
  consultaTrackIds: "/consultatrackids/api/TrackIds/Consulta",
  consultaEstado: "/consultaestado/api/Consultas/Estado",
  aprobacionComercial: "/aprobacioncomercial/api/AprobacionComercial",
  anularRango: "/anulacionrangos/api/Operaciones/AnularRango",
  directorioPorRnc: "/consultadirectorio/api/consultas/obtenerdirectorioporrnc",
  verificarEstado: "/api/estatusservicios/verificarestado",
} as const;
