import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { TIPOS_ECF, type TipoeCF } from "@ecf/shared";
import { makeEcf, type EcfFactoryOptions } from "@ecf/shared/test-support/ecf-factories";
import { admin, authed, createKey, freshRnc, tokenFor } from "./accounts.ts";
import { call } from "./http.ts";

export const sandboxUrl = () => inject("sandboxUrl");

/** Switches a sandbox fault (see dgii-sandbox/README.md); `clearFaults` turns them all off. */
export async function setFault(fault: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sandboxUrl()}/__sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(fault),
  });
  if (!res.ok) throw new Error(`sandbox fault refused: ${await res.text()}`);
}
export async function clearFaults(): Promise<void> {
  await fetch(`${sandboxUrl()}/__sandbox/faults`, { method: "DELETE" });
}

/**
 * Tells the sandbox who may sign for `rnc` (PUT /__sandbox/signers), as DGII knows each RNC's
 * delegates: it takes nothing signed for an RNC that registered no one. By default the test issuers'
 * certificate (every fixture .p12 but the renewed one holds it), so our issuing tests prove we sign
 * with the issuer's own certificate.
 */
export async function registerSigner(rnc: string, certificates = [inject("certificates").certificatePem]) {
  const res = await fetch(`${sandboxUrl()}/__sandbox/signers`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ rnc, certificates }),
  });
  if (!res.ok) throw new Error(`sandbox signers refused: ${await res.text()}`);
}

export interface ReceivedEntry {
  kind: string;
  rnc: string | null;
  encf: string | null;
  trackId: string | null;
  outcome: { codigo: number; estado: string };
}
/** What the sandbox received for an issuer (optionally one e-NCF). */
export async function received(rnc: string, encf?: string): Promise<ReceivedEntry[]> {
  const query = new URLSearchParams({ rnc, ...(encf ? { encf } : {}) });
  return (await (await fetch(`${sandboxUrl()}/__sandbox/received?${query}`)).json()) as ReceivedEntry[];
}

/** An issuer ready to issue: profile with address, certificate, ranges for all ten types, a token. */
export async function issuer(overrides: Record<string, unknown> = {}) {
  const fixtures = inject("certificates");
  const created = await admin<{ id: string; registryNumber: string }>("POST", "/admin/companies", {
    name: "Emisora de Prueba SRL",
    tradeName: "Emisora",
    registryNumber: freshRnc(),
    address: "Calle El Conde 1, Zona Colonial",
    province: "010000",
    municipality: "010100",
    dgiiServer: "testecf",
    invoiceLimitPerMonth: 1000,
    ...overrides,
  });
  // `rnc` repeats registryNumber for the tests' brevity.
  const company = { ...created, rnc: created.registryNumber };
  const form = new FormData();
  form.set("file", new File([Uint8Array.from(atob(fixtures.legacyP12), (ch) => ch.charCodeAt(0))], "firma.p12"));
  form.set("password", fixtures.password);
  const res = await call(`/admin/companies/${company.id}/certificate`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${env.ADMIN_SECRET}` },
    body: form,
  });
  if (!res.ok) throw new Error(`certificate upload failed: ${await res.text()}`);
  await registerSigner(company.rnc);
  for (const tipo of TIPOS_ECF) {
    await admin("PUT", `/admin/companies/${company.id}/sequences/${tipo}`, {
      rangeFrom: 1,
      rangeTo: 100_000,
      expiresOn: "2030-12-31",
    });
  }
  const token = await tokenFor(await createKey("company", company.id));
  return { company, token };
}

type Json = Record<string, any>;

/**
 * An API request for type `tipo`: a complete factory document with everything the service
 * derives taken out (issuer data, e-NCF, sequence expiry, totals, signature time), as an
 * integration would send it.
 */
export function issueRequest(tipo: TipoeCF, options: EcfFactoryOptions = {}, edit?: (doc: Json) => void): Json {
  const doc = structuredClone(makeEcf(tipo, options)) as Json;
  delete doc.Encabezado.Emisor;
  delete doc.Encabezado.IdDoc.eNCF;
  delete doc.Encabezado.IdDoc.FechaVencimientoSecuencia;
  delete doc.Encabezado.Totales;
  delete doc.Encabezado.OtraMoneda;
  delete doc.FechaHoraFirma;
  for (const item of doc.DetallesItems as Json[]) delete item.MontoItem;
  if (doc.InformacionReferencia) doc.InformacionReferencia.FechaNCFModificado = todayDgii();
  delete doc.Encabezado.IdDoc.IndicadorNotaCredito;
  edit?.(doc);
  return doc;
}

/** Today in Santo Domingo, dd-MM-yyyy. */
export function todayDgii(now = new Date()): string {
  const t = new Date(now.getTime() - 4 * 3_600_000);
  return `${String(t.getUTCDate()).padStart(2, "0")}-${String(t.getUTCMonth() + 1).padStart(2, "0")}-${t.getUTCFullYear()}`;
}

export async function issue(token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await call("/fe/recepcion/ecf", {
    method: "POST",
    headers: authed(token, { "Content-Type": "application/json", ...headers }),
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}
