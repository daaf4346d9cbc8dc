import {
  dgiiDateOf,
  isTipoeCF,
  objAt,
  // biome-ignore lint/suspicious/noShadowRestrictedNames: shared's reader of a key, not Object.prototype.valueOf
  valueOf,
  type EmisorProfile,
  type ModifiedReceipt,
  type TipoeCF,
} from "@ecf/shared";
import { sha256Hex } from "../crypto/credentials.ts";
import { acceptedNotesOf, findReceipt } from "../ledger/client.ts";
import type { Company } from "../db/tables.ts";

type Json = Record<string, unknown>;

/** The request's TipoeCF, when it names a valid one. */
export function requestedTipo(body: unknown): TipoeCF | undefined {
  const tipo = valueOf(objAt(body, "Encabezado", "IdDoc"), "TipoeCF");
  const text = typeof tipo === "number" ? String(tipo) : tipo;
  return isTipoeCF(text) ? text : undefined;
}

/** The request's own eNCF, when it sends one. */
export function requestedEncf(body: unknown): string | undefined {
  const encf = valueOf(objAt(body, "Encabezado", "IdDoc"), "eNCF");
  return typeof encf === "string" && encf.trim() ? encf.trim().toUpperCase() : undefined;
}

/** What the company profile contributes to `Emisor` (the request's own fields win). */
export function emisorProfile(company: Company): EmisorProfile {
  const profile: EmisorProfile = { RNCEmisor: company.rnc, RazonSocialEmisor: company.legalName };
  if (company.tradeName) profile.NombreComercial = company.tradeName;
  if (company.address) profile.DireccionEmisor = company.address;
  if (company.municipality) profile.Municipio = company.municipality;
  if (company.province) profile.Provincia = company.province;
  return profile;
}

/**
 * For a credit or debit note: the receipt it modifies, as our records know it, with the notes
 * DGII already accepted against it (so the balance rules can be applied before issuing).
 */
export async function modifiedReceiptFor(
  env: Env,
  companyId: string,
  body: unknown,
): Promise<ModifiedReceipt | undefined> {
  const ncf = valueOf(objAt(body, "InformacionReferencia"), "NCFModificado");
  if (typeof ncf !== "string" || !ncf) return undefined;
  const original = await findReceipt(env, companyId, ncf.toUpperCase());
  if (!original) return undefined;
  const notes = await acceptedNotesOf(env, original);
  // A note without TipoIngresos inherits the original's; only then is the archived XML read.
  const needsTipoIngresos = valueOf(objAt(body, "Encabezado", "IdDoc"), "TipoIngresos") === undefined;
  const TipoIngresos = needsTipoIngresos ? await archivedTipoIngresos(env.ARCHIVE, original.xmlKey) : undefined;
  return {
    eNCF: original.encf,
    ...(TipoIngresos ? { TipoIngresos } : {}),
    fechaEmision: dgiiDateOf(original.issueDate),
    montoTotal: original.montoTotal,
    acceptedNotes: notes
      .filter((n) => (n.tipoeCF === "33" || n.tipoeCF === "34") && n.codigoModificacion)
      .map((n) => ({
        tipo: n.tipoeCF as "33" | "34",
        codigoModificacion: n.codigoModificacion as "1" | "2" | "3" | "4" | "5",
        montoTotal: n.montoTotal,
      })),
  };
}

/** `TipoIngresos` of a receipt we signed (our serializer's compact XML, so a plain match is exact). */
async function archivedTipoIngresos(archive: R2Bucket, key: string): Promise<string | undefined> {
  const object = await archive.get(key);
  if (!object) return undefined;
  return /<IdDoc>(?:(?!<\/IdDoc>).)*?<TipoIngresos>(0[1-6])<\/TipoIngresos>/s.exec(await object.text())?.[1];
}

/** Where the fields the service assigns sit: [the object's path, the field]. */
const ASSIGNED_FIELDS: [path: string[], field: string][] = [
  [[], "FechaHoraFirma"],
  [["Encabezado", "IdDoc"], "eNCF"],
  [["Encabezado", "IdDoc"], "FechaVencimientoSecuencia"],
];

/**
 * The request without what the service assigns whatever the client sends: the e-NCF (the lookup
 * key of a resend), FechaVencimientoSecuencia (always the range's) and FechaHoraFirma (set when
 * signing). A client that resends a service-numbered receipt with the e-NCF it was given, or
 * echoes those fields back, is sending the same document. A body that carries none of them (with
 * whatever value) is returned as it is; otherwise a copy, never the body changed.
 */
export function withoutAssignedFields(body: unknown): unknown {
  const carried = ASSIGNED_FIELDS.some(([path, field]) => {
    const at = objAt(body, ...path);
    return at !== undefined && Object.hasOwn(at, field);
  });
  if (!carried) return body;
  const copy = structuredClone(body);
  for (const [path, field] of ASSIGNED_FIELDS) {
    const at = objAt(copy, ...path);
    if (at) delete at[field];
  }
  return copy;
}

/**
 * What identifies a request: its whole body (the request an Idempotency-Key names; also how rows
 * recorded before 1.8 identify their document) and its document without the fields the service
 * assigns (a resend of a receipt). Hashed once when the body carries none of those fields: the
 * text is the same.
 */
export async function requestHashes(body: unknown): Promise<{ request: string; document: string }> {
  const request = await sha256Hex(stableStringify(body));
  const document = withoutAssignedFields(body);
  return { request, document: document === body ? request : await sha256Hex(stableStringify(document)) };
}

/** JSON with sorted keys: the same request always hashes the same. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value as Json)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Json)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
