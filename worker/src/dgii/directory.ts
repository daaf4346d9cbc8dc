// Consulta Directorio: where another taxpayer receives e-CF and commercial approvals. DGII answers
// hosts; the receiver standard's paths are appended to them.
import type { DgiiClient } from "./client.ts";

export interface DirectoryEntry {
  nombre: string;
  rnc: string;
  urlRecepcion: string;
  urlAceptacion: string;
  urlOpcional: string | null;
}

/** A taxpayer's entry in DGII's directory, or undefined when it is not listed (through the DGII client: its token, a 401 renewed once). */
export async function lookUpTaxpayer(client: DgiiClient, rnc: string): Promise<DirectoryEntry | undefined> {
  return (await client.directorio<DirectoryEntry>(rnc)).find((e) => e.rnc === rnc);
}

/** `https://host/x` + `/fe/aprobacioncomercial/api/ecf`, without doubling a path already there. */
export function serviceUrl(host: string, path: string): string {
  const base = host.replace(/\/+$/, "");
  return base.toLowerCase().endsWith(path) ? base : `${base}${path}`;
}
