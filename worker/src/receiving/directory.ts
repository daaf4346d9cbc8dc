// Consulta Directorio: where another taxpayer receives e-CF and commercial approvals. DGII answers
// hosts; the receiver standard's paths are appended to them.
import { DgiiClient } from "../dgii/client.ts";
import { hostsFor } from "../dgii/endpoints.ts";
import type { Company } from "../db/schema.ts";

export interface DirectoryEntry {
  nombre: string;
  rnc: string;
  urlRecepcion: string;
  urlAceptacion: string;
  urlOpcional: string | null;
}

/** The supplier's entry in DGII's directory, or undefined when it is not listed. */
export async function lookUpTaxpayer(env: Env, company: Company, client: DgiiClient, rnc: string, timeoutMs: number): Promise<DirectoryEntry | undefined> {
  const url = `${hostsFor(env).ecf}/${company.dgiiEnvironment}/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${encodeURIComponent(rnc)}`;
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${await client.token()}`, Accept: "application/json" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`Consulta Directorio answered HTTP ${response.status}`);
  const entries = (await response.json()) as DirectoryEntry[];
  return Array.isArray(entries) ? entries.find((e) => e.rnc === rnc) : undefined;
}

/** `https://host/x` + `/fe/aprobacioncomercial/api/ecf`, without doubling a path already there. */
export function serviceUrl(host: string, path: string): string {
  const base = host.replace(/\/+$/, "");
  return base.toLowerCase().endsWith(path) ? base : `${base}${path}`;
}
